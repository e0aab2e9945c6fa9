package dev.tickwheel.server.app;

import dev.tickwheel.server.api.ApiSettings;
import dev.tickwheel.server.dispatch.guard.OutboundGuard;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The standalone server's outbound guard settings ({@code --outbound-guard}, {@code --allow-targets}) and the rule
 * that turns them into an {@link OutboundGuard}: {@code auto} guards a server that binds a non-loopback host (its API
 * takes jobs from the network, so a job must not make it call into the network behind it), {@code on} and
 * {@code off} say so regardless.
 *
 * <p>Immutable.
 *
 * @param mode         auto, on or off
 * @param allowTargets CIDR blocks, addresses and host patterns the guard lets through
 */
public record OutboundSettings(Mode mode, List<String> allowTargets) {

    /** When the guard is on. */
    public enum Mode {
        /** On when the API binds a host that is not loopback. */
        AUTO,
        /** On whatever the host (a loopback server whose callers are not trusted, or a test). */
        ON,
        /** Off whatever the host: every address may be called. */
        OFF;

        /** {@code auto}, {@code on} or {@code off}, any case; else an {@link IllegalArgumentException}. */
        static Mode parse(String text) {
            try {
                return valueOf(text.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("outbound-guard must be auto, on or off, got '" + text + "'", e);
            }
        }
    }

    /** The setting a refusal's message names. */
    static final String HOW_TO_ALLOW = "--allow-targets";

    /** Auto, nothing allowed beyond public addresses. */
    public static final OutboundSettings DEFAULTS = new OutboundSettings(Mode.AUTO, List.of());

    public OutboundSettings {
        Objects.requireNonNull(mode, "mode");
        allowTargets = List.copyOf(allowTargets);
    }

    /** Whether the guard is on for a server with these API settings. */
    boolean guards(ApiSettings api) {
        return mode == Mode.ON || mode == Mode.AUTO && !ApiSettings.isLoopback(api.host());
    }

    /**
     * The guard of a server with these API settings. With {@code --demo} the server's own host is allowed too: the
     * demo's webhook jobs call the server's {@code /demo/echo}.
     *
     * @throws IllegalArgumentException naming an allow-list entry that is no CIDR block, address or host pattern
     */
    OutboundGuard guard(ApiSettings api) {
        if (!guards(api)) {
            return OutboundGuard.OFF;
        }
        OutboundGuard.Builder guard = OutboundGuard.builder().howToAllow(HOW_TO_ALLOW).allowAll(allowTargets);
        if (api.demoEcho()) {
            guard.allow(TickwheelApplication.reachableHost(api.host()));
        }
        return guard.build();
    }

    /** For the effective configuration's log line. */
    String describe(ApiSettings api) {
        return "outbound-guard=" + mode.name().toLowerCase(Locale.ROOT) + " (" + (guards(api) ? "on" : "off")
                + ") allow-targets=" + (allowTargets.isEmpty() ? "none" : String.join(",", allowTargets));
    }
}

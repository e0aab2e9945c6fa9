package dev.tickwheel.server.dispatch.guard;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A host name the outbound guard lets through whatever it resolves to: exactly {@code hooks.example.com}, or with a
 * leading {@code *.} every name under a domain ({@code *.internal.example.com} matches {@code a.internal.example.com}
 * and {@code a.b.internal.example.com}, not {@code internal.example.com} itself nor {@code evil-internal.example.com}).
 * Names compare without case and without a trailing dot.
 *
 * <p>Immutable.
 *
 * @param suffix   for a wildcard, the domain with its leading dot ({@code .internal.example.com}); else the name
 * @param wildcard whether the pattern started with {@code *.}
 */
public record HostPattern(String suffix, boolean wildcard) {

    /** Letters, digits, hyphens and underscores in dot-separated labels (underscores: service names in DNS). */
    private static final Pattern NAME = Pattern.compile("[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\\.[a-z0-9_]([a-z0-9_-]*"
            + "[a-z0-9_])?)*");

    /**
     * @throws IllegalArgumentException naming the text, if it is not a host name with at most a leading {@code *.}
     */
    public static HostPattern parse(String text) {
        String name = normalized(text);
        boolean wildcard = name.startsWith("*.");
        String domain = wildcard ? name.substring(2) : name;
        // A numeric last label is no DNS name: the JDK would read "10.1" as an address (10.0.0.1).
        if (!NAME.matcher(domain).matches() || domain.substring(domain.lastIndexOf('.') + 1).matches("\\d+")) {
            throw new IllegalArgumentException("'" + text + "' is not a host name or a pattern such as"
                    + " hooks.example.com or *.internal.example.com");
        }
        return new HostPattern(wildcard ? "." + domain : domain, wildcard);
    }

    /** True if {@code host} (a name as in a URL) is this pattern's name or, for a wildcard, a name under it. */
    public boolean matches(String host) {
        String name = normalized(host);
        return wildcard ? name.length() > suffix.length() && name.endsWith(suffix) : name.equals(suffix);
    }

    private static String normalized(String host) {
        String name = host.strip().toLowerCase(Locale.ROOT);
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    @Override
    public String toString() {
        return wildcard ? "*" + suffix : suffix;
    }
}

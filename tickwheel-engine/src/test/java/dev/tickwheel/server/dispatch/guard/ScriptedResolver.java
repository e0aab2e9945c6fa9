package dev.tickwheel.server.dispatch.guard;

import com.google.common.net.InetAddresses;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A DNS for tests: each name answers what the test said, one answer per lookup in order, the last one repeated (so a
 * name can answer a public address to the creation check and a loopback one at connect); an unknown name has no
 * address. Counts the lookups of each name.
 *
 * <p>Thread-safe.
 */
public final class ScriptedResolver implements OutboundGuard.Resolver {

    private final Map<String, List<InetAddress>> answers = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();

    /** {@code host} answers each of {@code addresses} in turn, then the last one for ever. */
    public ScriptedResolver answer(String host, String... addresses) {
        answers.put(host, java.util.Arrays.stream(addresses).map(InetAddresses::forString).toList());
        return this;
    }

    @Override
    public InetAddress[] resolve(String host) throws UnknownHostException {
        List<InetAddress> scripted = answers.get(host);
        if (scripted == null) {
            throw new UnknownHostException(host);
        }
        int lookup = lookups.computeIfAbsent(host, h -> new AtomicInteger()).getAndIncrement();
        return new InetAddress[] {scripted.get(Math.min(lookup, scripted.size() - 1))};
    }

    /** How many times {@code host} was looked up. */
    public int lookups(String host) {
        AtomicInteger count = lookups.get(host);
        return count == null ? 0 : count.get();
    }

    /** A guard that resolves through this, names {@code --allow-targets} in its refusals and allows {@code allowed}. */
    public OutboundGuard guard(String... allowed) {
        return OutboundGuard.builder().resolver(this).howToAllow("--allow-targets").allowAll(List.of(allowed))
                .build();
    }
}

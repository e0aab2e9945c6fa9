package dev.tickwheel.server.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/** Keys of secrets at rest for tests: 32 bytes made from a seed, so that a test names them by number. */
public final class TestKeys {

    private TestKeys() {
    }

    /** 32 bytes of {@code seed}, the first one mixed, as base64: a valid key, the same for the same seed. */
    public static String key(int seed) {
        byte[] bytes = new byte[SecretKeys.KEY_BYTES];
        Arrays.fill(bytes, (byte) seed);
        bytes[0] = (byte) (seed * 31 + 7);
        return Base64.getEncoder().encodeToString(bytes);
    }

    /** The key of seed {@code current}, with the keys of {@code previous} as previous keys. */
    public static SecretKeys keys(int current, int... previous) {
        List<String> older = new ArrayList<>();
        for (int seed : previous) {
            older.add(key(seed));
        }
        return SecretKeys.parse(key(current), "secretKey", older, "previousSecretKeys");
    }

    /** The key id of the key of {@code seed}. */
    public static String idOf(int seed) {
        return keys(seed).currentKeyId().orElseThrow();
    }
}

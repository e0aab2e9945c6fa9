package dev.tickwheel.server.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that encrypt the store's secrets at rest ({@link SecretBox}): the current key, which encrypts every value
 * written, and the previous keys, which only decrypt (a key being retired, or one being introduced across a cluster
 * before it becomes current). Each key is 32 bytes (AES-256) given as base64, and is known in logs and errors only by
 * its {@linkplain #idOf key id}: the first 8 hex digits of SHA-256 over a domain-separated input, which names the key
 * without revealing it.
 *
 * <p>Immutable. {@link #toString()} shows key ids, never keys.
 *
 * <p>Caveats: a key id has 32 bits: it tells apart the handful of keys an operator uses, it is no proof of identity
 * (AES-GCM's tag is: a value opened with another key fails).
 */
public final class SecretKeys {

    /** The length of a key: AES-256. */
    public static final int KEY_BYTES = 32;
    /** How to make a key, for messages and docs. */
    public static final String HOW_TO_MAKE_ONE = "openssl rand -base64 32";

    /** No key: secrets are kept as given. */
    public static final SecretKeys NONE = new SecretKeys(null, Map.of());

    private static final int KEY_ID_HEX_DIGITS = 8;
    private static final byte[] KEY_ID_DOMAIN = "tickwheel secret key id v1\0".getBytes(StandardCharsets.US_ASCII);

    private final String currentId;
    /** Every key by id, the current one first; insertion-ordered. */
    private final Map<String, SecretKeySpec> keys;

    private SecretKeys(String currentId, Map<String, SecretKeySpec> keys) {
        this.currentId = currentId;
        this.keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
    }

    /**
     * Parses the current key and the previous ones; errors name the setting and what it got (a length, never the
     * value).
     *
     * @param current      the current key as base64 (standard or URL alphabet, padding optional), or null/blank for
     *                     none
     * @param currentName  the current key's setting, for errors ({@code secretKey}, {@code secret-key}, ...)
     * @param previous     previous keys as base64; blank entries are ignored
     * @param previousName the previous keys' setting, for errors
     * @throws IllegalArgumentException for a key that is not 32 bytes of base64, previous keys without a current
     *                                  one, or the same key twice
     */
    public static SecretKeys parse(String current, String currentName, List<String> previous, String previousName) {
        Objects.requireNonNull(previous, previousName);
        List<String> given = previous.stream().filter(key -> key != null && !key.isBlank()).toList();
        if (current == null || current.isBlank()) {
            if (!given.isEmpty()) {
                throw new IllegalArgumentException(previousName + " needs " + currentName + ": previous keys only"
                        + " decrypt, and values are written under the current key");
            }
            return NONE;
        }
        Map<String, SecretKeySpec> keys = new LinkedHashMap<>();
        SecretKeySpec currentKey = decode(current, currentName);
        String currentId = idOf(currentKey.getEncoded());
        keys.put(currentId, currentKey);
        for (int i = 0; i < given.size(); i++) {
            String name = given.size() == 1 ? previousName : previousName + " (key " + (i + 1) + " of " + given.size()
                    + ")";
            SecretKeySpec key = decode(given.get(i), name);
            String id = idOf(key.getEncoded());
            if (keys.putIfAbsent(id, key) != null) {
                throw new IllegalArgumentException(name + " repeats a key already given (key id " + id + ")");
            }
        }
        return new SecretKeys(currentId, keys);
    }

    private static SecretKeySpec decode(String base64, String name) {
        String trimmed = base64.strip();
        byte[] bytes;
        try {
            bytes = (trimmed.indexOf('-') >= 0 || trimmed.indexOf('_') >= 0 ? Base64.getUrlDecoder()
                    : Base64.getDecoder()).decode(trimmed);
        } catch (IllegalArgumentException notBase64) {
            throw new IllegalArgumentException(name + " must be " + KEY_BYTES + " random bytes as base64 (make one"
                    + " with: " + HOW_TO_MAKE_ONE + "), got " + trimmed.length() + " characters that are not base64");
        }
        if (bytes.length != KEY_BYTES) {
            throw new IllegalArgumentException(name + " must be " + KEY_BYTES + " random bytes as base64 (make one"
                    + " with: " + HOW_TO_MAKE_ONE + "), got " + bytes.length + " bytes");
        }
        return new SecretKeySpec(bytes, "AES");
    }

    /** The key id of a raw key: the first 8 hex digits of SHA-256("tickwheel secret key id v1\0" + key). */
    static String idOf(byte[] key) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(KEY_ID_DOMAIN);
            byte[] digest = sha.digest(key);
            return HexFormat.of().formatHex(digest).substring(0, KEY_ID_HEX_DIGITS);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform, yet: " + e, e);
        }
    }

    /** The current key's id, or empty without a key. */
    public Optional<String> currentKeyId() {
        return Optional.ofNullable(currentId);
    }

    /** The previous keys' ids, in the order given. */
    public List<String> previousKeyIds() {
        List<String> ids = new ArrayList<>(keys.keySet());
        ids.remove(currentId);
        return List.copyOf(ids);
    }

    /** Whether a key with this id was given (current or previous). */
    public boolean knows(String keyId) {
        return keys.containsKey(keyId);
    }

    /** The key with this id, or null. */
    SecretKeySpec key(String keyId) {
        return keys.get(keyId);
    }

    @Override
    public String toString() {
        return currentId == null ? "none" : "current key id " + currentId
                + (keys.size() > 1 ? ", previous key ids " + previousKeyIds() : "");
    }
}

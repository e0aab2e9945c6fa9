package dev.tickwheel.server.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Parsing the keys of secrets at rest: what is accepted, and refusals that name the setting but never the key. */
class SecretKeysTest {

    private static final String KEY_A = TestKeys.key(1);
    private static final String KEY_B = TestKeys.key(2);

    private static SecretKeys keys(String current, String... previous) {
        return SecretKeys.parse(current, "secretKey", List.of(previous), "previousSecretKeys");
    }

    @Test
    void parse_currentAndPrevious_idsAreEightHexDigitsAndDistinct() {
        SecretKeys keys = keys(KEY_B, KEY_A);
        String b = keys.currentKeyId().orElseThrow();
        String a = keys.previousKeyIds().get(0);
        assertTrue(b.matches("[0-9a-f]{8}"), b);
        assertTrue(a.matches("[0-9a-f]{8}"), a);
        assertFalse(a.equals(b));
        assertTrue(keys.knows(a) && keys.knows(b));
        assertEquals(a, keys(KEY_A).currentKeyId().orElseThrow(), "the id depends on the key alone");
    }

    @Test
    void parse_urlAlphabetWithoutPaddingAndSurroundingWhitespace_sameKey() {
        byte[] raw = Base64.getDecoder().decode(KEY_A);
        String url = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
        assertEquals(keys(KEY_A).currentKeyId(), keys(" " + url + "\n").currentKeyId());
    }

    @Test
    void parse_blankCurrentWithoutPrevious_none() {
        assertSame(SecretKeys.NONE, keys(null));
        assertSame(SecretKeys.NONE, keys("  ", ""));
        assertTrue(SecretKeys.NONE.currentKeyId().isEmpty());
    }

    @Test
    void parse_wrongLength_namesSettingAndByteCountNotTheValue() {
        String short16 = Base64.getEncoder().encodeToString(new byte[16]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SecretKeys.parse(short16, "--secret-key", List.of(), "--previous-secret-keys"));
        assertEquals("--secret-key must be 32 random bytes as base64 (make one with: openssl rand -base64 32), got"
                + " 16 bytes", e.getMessage());
    }

    @Test
    void parse_notBase64_namesSettingAndLengthNotTheValue() {
        String typed = "my secret password!";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> keys(typed));
        assertEquals("secretKey must be 32 random bytes as base64 (make one with: openssl rand -base64 32), got 19"
                + " characters that are not base64", e.getMessage());
        assertFalse(e.getMessage().contains(typed));
    }

    @Test
    void parse_badPreviousKeyAmongSeveral_namesWhichOne() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> keys(KEY_B, KEY_A, "c2hvcnQ="));
        assertTrue(e.getMessage().startsWith("previousSecretKeys (key 2 of 2) must be 32 random bytes"),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("got 5 bytes"), e.getMessage());
    }

    @Test
    void parse_previousWithoutCurrent_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> keys("", KEY_A));
        assertTrue(e.getMessage().startsWith("previousSecretKeys needs secretKey"), e.getMessage());
    }

    @Test
    void parse_sameKeyTwice_refusedByKeyId() {
        String id = keys(KEY_A).currentKeyId().orElseThrow();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> keys(KEY_A, KEY_A));
        assertEquals("previousSecretKeys repeats a key already given (key id " + id + ")", e.getMessage());
    }

    @Test
    void toString_showsKeyIdsNeverKeys() {
        SecretKeys keys = keys(KEY_B, KEY_A);
        String text = keys.toString();
        assertEquals("current key id " + keys.currentKeyId().orElseThrow() + ", previous key ids "
                + keys.previousKeyIds(), text);
        assertFalse(text.contains(KEY_A) || text.contains(KEY_B));
        assertEquals("none", SecretKeys.NONE.toString());
    }
}

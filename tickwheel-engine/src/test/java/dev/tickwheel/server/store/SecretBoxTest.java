package dev.tickwheel.server.store;

import static dev.tickwheel.server.store.TestKeys.keys;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** AES-GCM sealing of secrets at rest: round trips, wrong keys and places, damaged forms. */
class SecretBoxTest {

    private static final String SECRET = "whsec_0123456789abcdef";
    private static final String CONTEXT = "tw_job.signing_secret/42";

    private final SecretBox boxA = new SecretBox(keys(1));
    private final String idA = keys(1).currentKeyId().orElseThrow();

    @Test
    void seal_thenOpen_roundTrip() {
        SecretBox.Sealed sealed = boxA.seal(SECRET, CONTEXT);
        assertEquals(idA, sealed.keyId());
        assertTrue(sealed.stored().startsWith("tw1:" + idA + ":"), sealed.stored());
        assertFalse(sealed.stored().contains(SECRET));
        assertEquals(SECRET, boxA.open(sealed.stored(), CONTEXT));
        assertEquals(SecretBox.keyIdOf(sealed.stored()).orElseThrow(), idA);
    }

    @Test
    void seal_nonAsciiLongestSecret_roundTripAndFitsTheColumn() {
        String secret = "ü€😀".repeat(64); // 256 chars, 768 bytes of UTF-8
        String stored = boxA.seal(secret, CONTEXT).stored();
        assertTrue(stored.length() <= 2048, "tw_job.signing_secret is VARCHAR(2048): " + stored.length());
        assertEquals(secret, boxA.open(stored, CONTEXT));
    }

    @Test
    void seal_sameSecretTwice_differentStoredForms() {
        assertNotEquals(boxA.seal(SECRET, CONTEXT).stored(), boxA.seal(SECRET, CONTEXT).stored());
    }

    @Test
    void seal_withoutKey_keptAsGivenMarkedPlain() {
        SecretBox.Sealed sealed = SecretBox.NONE.seal(SECRET, CONTEXT);
        assertEquals(new SecretBox.Sealed(SECRET, SecretBox.PLAIN), sealed);
    }

    @Test
    void open_underPreviousKey_opens() {
        String stored = boxA.seal(SECRET, CONTEXT).stored();
        assertEquals(SECRET, new SecretBox(keys(2, 1)).open(stored, CONTEXT));
    }

    @Test
    void open_keyNotGiven_saysWhichKeyId() {
        String stored = boxA.seal(SECRET, CONTEXT).stored();
        UnreadableSecretException e = assertThrows(UnreadableSecretException.class,
                () -> new SecretBox(keys(2)).open(stored, CONTEXT));
        assertTrue(e.getMessage().startsWith("it is encrypted under key id " + idA + ", which was not given"),
                e.getMessage());
    }

    @Test
    void open_anotherKeyUnderTheSameKeyId_doesNotDecrypt() {
        // The key id names a key, it does not prove it: a value relabelled with another key's id fails GCM's tag.
        String underB = new SecretBox(keys(2)).seal(SECRET, CONTEXT).stored();
        String idB = keys(2).currentKeyId().orElseThrow();
        String relabelled = underB.replace(":" + idB + ":", ":" + idA + ":");
        UnreadableSecretException e = assertThrows(UnreadableSecretException.class,
                () -> boxA.open(relabelled, CONTEXT));
        assertTrue(e.getMessage().contains("does not decrypt under key id " + idA), e.getMessage());
    }

    @Test
    void open_otherAssociatedData_doesNotDecrypt() {
        String stored = boxA.seal(SECRET, CONTEXT).stored();
        UnreadableSecretException e = assertThrows(UnreadableSecretException.class,
                () -> boxA.open(stored, "tw_job.signing_secret/43"));
        assertEquals("it does not decrypt under key id " + idA + ": it was altered, or copied from another row",
                e.getMessage());
    }

    @Test
    void open_oneBitFlipped_doesNotDecrypt() {
        String stored = boxA.seal(SECRET, CONTEXT).stored();
        String prefix = "tw1:" + idA + ":";
        byte[] bytes = Base64.getUrlDecoder().decode(stored.substring(prefix.length()));
        bytes[bytes.length / 2] ^= 1;
        String flipped = prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        assertThrows(UnreadableSecretException.class, () -> boxA.open(flipped, CONTEXT));
    }

    @Test
    void open_malformedForms_sayWhatIsWrongWithoutTheValue() {
        String prefix = "tw1:" + idA + ":";
        assertEquals("it is not an encrypted value (tw1:<key id>:<base64url>, got 22 characters)",
                message(SECRET));
        assertEquals("it is not an encrypted value (tw1:<key id>:<base64url>, got 18 characters starting with"
                + " tw1)", message("tw1:" + idA + ":a+b/c"));
        assertEquals("it is not an encrypted value (tw1:<key id>:<base64url>, got 19 characters starting with"
                + " tw1)", message("tw1:ABCDEFGH:AAAAAA"));
        assertEquals("it is not an encrypted value (tw1:<key id>:<base64url>, got 13 characters starting with"
                + " tw1)", message(prefix));
        assertTrue(message(prefix + "A").startsWith("its base64 is damaged"), message(prefix + "A"));
        assertEquals("it is too short to be encrypted: 27 bytes",
                message(prefix + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[27])));
        assertFalse(SecretBox.isSealed(SECRET));
        assertTrue(SecretBox.keyIdOf(SECRET).isEmpty());
    }

    private String message(String stored) {
        return assertThrows(UnreadableSecretException.class, () -> boxA.open(stored, CONTEXT)).getMessage();
    }
}

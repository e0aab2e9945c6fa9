package dev.tickwheel.server.store.jdbc;

import dev.tickwheel.server.store.SecretBox;
import dev.tickwheel.server.store.UnreadableSecretException;

/**
 * The two secret columns of the store and how their values are sealed and opened ({@link SecretBox}):
 * {@code tw_job.signing_secret}, whose key id is kept beside it in {@code signing_secret_key_id}, and
 * {@code tw_cluster.callback_key}, whose form says whether it is encrypted (plain, it is 64 hex digits). Each value's
 * associated data names its column and row, so a value copied elsewhere does not open.
 *
 * <p>Stateless; thread-safe.
 */
final class SecretColumns {

    /** The associated data of the cluster's callback key (one row). */
    static final String CALLBACK_KEY = "tw_cluster.callback_key";

    private SecretColumns() {
    }

    /** The associated data of one job's signing secret. */
    static String signingSecretOf(long jobId) {
        return "tw_job.signing_secret/" + jobId;
    }

    /** A job's secret as stored, or null for none. */
    static SecretBox.Sealed sealSigningSecret(SecretBox box, long jobId, String secret) {
        return secret == null ? null : box.seal(secret, signingSecretOf(jobId));
    }

    /**
     * A job's secret as read: as stored when kept plain (key id {@link SecretBox#PLAIN}, or none from a server that
     * predates encryption), else decrypted.
     *
     * @throws UnreadableSecretException naming the job, if it does not decrypt
     */
    static String openSigningSecret(SecretBox box, long jobId, String stored, String keyId) {
        if (stored == null || keyId == null || keyId.equals(SecretBox.PLAIN)) {
            return stored;
        }
        try {
            return box.open(stored, signingSecretOf(jobId));
        } catch (UnreadableSecretException e) {
            throw new UnreadableSecretException("the signing secret of job " + jobId + " cannot be read: "
                    + e.getMessage() + "; give its key, or set a new secret on the job after clearing the column"
                    + " (UPDATE tw_job SET signing_secret = NULL, signing_secret_key_id = NULL WHERE id = " + jobId
                    + ")");
        }
    }

    /** The cluster's callback key (hex) as stored: encrypted when the box has a key. */
    static SecretBox.Sealed sealCallbackKey(SecretBox box, String hex) {
        return box.seal(hex, CALLBACK_KEY);
    }

    /** The callback key's hex from its stored form, decrypted if sealed. */
    static String openCallbackKey(SecretBox box, String stored) {
        if (!SecretBox.isSealed(stored)) {
            return stored;
        }
        try {
            return box.open(stored, CALLBACK_KEY);
        } catch (UnreadableSecretException e) {
            throw new UnreadableSecretException("the cluster's callback key (tw_cluster.callback_key) cannot be"
                    + " read: " + e.getMessage());
        }
    }
}

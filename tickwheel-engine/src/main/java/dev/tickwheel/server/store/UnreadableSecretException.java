package dev.tickwheel.server.store;

/**
 * A secret in the store cannot be decrypted ({@link SecretBox#open}): its key was not given, or the stored value was
 * altered or copied from another row. Never a wrong secret silently: the message says whose secret and why, and never
 * shows the value.
 *
 * <p>Immutable.
 */
public final class UnreadableSecretException extends StoreException {

    private static final long serialVersionUID = 1L;

    public UnreadableSecretException(String message) {
        super(message, null);
    }
}

package dev.tickwheel.server.store;

import java.util.List;

/**
 * The store holds secrets encrypted under keys this server was not given: it would neither sign nor check what they
 * protect, so it refuses to start. {@link #describe} words the refusal in one line with the caller's names of the two
 * settings ({@link #getMessage()} uses the engine builder's: {@code secretKey}, {@code previousSecretKeys}).
 *
 * <p>Immutable.
 */
public final class SecretKeyMismatchException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final List<String> unknownKeyIds;
    private final boolean keyGiven;

    /**
     * @param unknownKeyIds the key ids the store's secrets are under that were not given, at least one
     * @param keyGiven      whether the server was given a current key at all
     */
    public SecretKeyMismatchException(List<String> unknownKeyIds, boolean keyGiven) {
        super(describe(unknownKeyIds, keyGiven, "secretKey", "previousSecretKeys"));
        this.unknownKeyIds = List.copyOf(unknownKeyIds);
        this.keyGiven = keyGiven;
    }

    /** The refusal in one line, naming the settings as the caller knows them ({@code --secret-key}, ...). */
    public String describe(String keySetting, String previousSetting) {
        return describe(unknownKeyIds, keyGiven, keySetting, previousSetting);
    }

    private static String describe(List<String> ids, boolean keyGiven, String keySetting, String previousSetting) {
        String which = (ids.size() == 1 ? "key id " : "key ids ") + String.join(", ", ids);
        if (!keyGiven) {
            return "the store's secrets are encrypted (" + which + ") and no " + keySetting + " is given; give the"
                    + " key they are encrypted with as " + keySetting;
        }
        return keySetting + " does not match the key the store's secrets are encrypted with (" + which + "); give"
                + " that key, or it as " + previousSetting + " beside the new one";
    }
}

package dev.tickwheel.client;

/**
 * One HTTP answer as the transport hands it on: the status and the whole body.
 *
 * <p>Immutable by convention: the body array is not copied and nobody writes to it.
 *
 * @param status the HTTP status
 * @param body   the body, empty (never null) if there was none
 */
record HttpAnswer(int status, byte[] body) {

    static final byte[] NO_BODY = new byte[0];
}

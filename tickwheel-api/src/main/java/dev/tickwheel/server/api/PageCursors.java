package dev.tickwheel.server.api;

import dev.tickwheel.server.store.JobNameCursor;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code cursor} strings of the listings. Clients treat them as opaque: pass a page's {@code nextCursor} back
 * unchanged; absent, blank or {@code 0} asks for the first page.
 * <ul>
 *   <li>Jobs, by (name, id): base64url (no padding) of {@code <id>:<name>} in UTF-8. A name is any text, so the id
 *       comes first and the first colon ends it.</li>
 *   <li>Instances, newest first: the decimal id of the page's last instance (the next page is below it).</li>
 * </ul>
 * A cursor that does not decode is a 400 with {@code field} {@code cursor}.
 *
 * <p>Immutable (static functions).
 */
final class PageCursors {

    private static final String PARAMETER = "cursor";

    private PageCursors() {
    }

    static String encodeJob(JobNameCursor cursor) {
        byte[] text = (cursor.jobId() + ":" + cursor.name()).getBytes(StandardCharsets.UTF_8);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text);
    }

    /** @return the cursor, or null for the first page */
    static JobNameCursor decodeJob(String raw) {
        if (isFirstPage(raw)) {
            return null;
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(Base64.getUrlDecoder().decode(raw.trim())))
                    .toString();
            int colon = text.indexOf(':');
            long id = colon > 0 ? Long.parseLong(text.substring(0, colon)) : -1;
            String name = colon > 0 ? text.substring(colon + 1) : "";
            // A name that no job can have (NUL, too long) cannot come from this server; PostgreSQL refuses NUL.
            if (id > 0 && !name.isEmpty() && name.indexOf('\0') < 0
                    && name.length() <= JobRequestParser.MAX_NAME_LENGTH) {
                return new JobNameCursor(name, id);
            }
        } catch (IllegalArgumentException | CharacterCodingException e) {
            // NumberFormatException is an IllegalArgumentException; every failure is reported the same way below
        }
        throw malformed(raw);
    }

    static String encodeInstance(long id) {
        return Long.toString(id);
    }

    /** @return the id the next page is below, or null for the first page */
    static Long decodeInstance(String raw) {
        if (isFirstPage(raw)) {
            return null;
        }
        try {
            long id = Long.parseLong(raw.trim());
            if (id > 0) {
                return id;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw malformed(raw);
    }

    private static boolean isFirstPage(String raw) {
        return raw == null || raw.isBlank() || raw.trim().equals("0");
    }

    private static ApiException malformed(String raw) {
        return ApiException.invalidParameter(PARAMETER, "is not a cursor this server issued (pass a page's"
                + " nextCursor unchanged), got " + ApiException.quoted(raw));
    }
}

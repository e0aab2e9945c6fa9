package dev.tickwheel.server.api;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ByteArrayOutputStream;

/**
 * An {@link ApiExchange} that knows its {@link Caller}, and keeps what the audit trail records of it: the status
 * answered, the {@code Location} of what it created, the request body read (up to {@link #MAX_KEPT_BODY_BYTES}), and
 * what a route says about the change (its namespace, the fields changed).
 *
 * <p>Not thread-safe: one exchange belongs to the thread answering it.
 */
final class CallerExchange implements ApiExchange {

    static final int MAX_KEPT_BODY_BYTES = 64 * 1024;

    private final ApiExchange exchange;
    private final Caller caller;
    private int status = 200;
    private String location;
    private ByteArrayOutputStream body;
    private String namespace;
    private Object changes;

    CallerExchange(ApiExchange exchange, Caller caller) {
        this.exchange = exchange;
        this.caller = caller;
    }

    /** The caller of {@code ctx}: every route's exchange is a {@code CallerExchange}. */
    static Caller caller(ApiExchange ctx) {
        if (ctx instanceof CallerExchange known) {
            return known.caller;
        }
        throw new IllegalStateException("a route ran without its access check: " + ctx.method() + " " + ctx.path());
    }

    /** Records, for the audit trail, the namespace the change was made in (when the caller's is every one). */
    static void changedIn(ApiExchange ctx, String namespaceName) {
        if (ctx instanceof CallerExchange known) {
            known.namespace = namespaceName;
        }
    }

    /** Records, for the audit trail, the fields a change changed (instead of the request body). */
    static void changed(ApiExchange ctx, Object fieldsChanged) {
        if (ctx instanceof CallerExchange known) {
            known.changes = fieldsChanged;
        }
    }

    Caller caller() {
        return caller;
    }

    int answeredStatus() {
        return status;
    }

    String location() {
        return location;
    }

    String namespace() {
        return namespace;
    }

    Object changes() {
        return changes;
    }

    /** The request body as read, or null if none was read (or it was longer than {@link #MAX_KEPT_BODY_BYTES}). */
    byte[] bodyRead() {
        return body == null || body.size() > MAX_KEPT_BODY_BYTES ? null : body.toByteArray();
    }

    @Override
    public String method() {
        return exchange.method();
    }

    @Override
    public String path() {
        return exchange.path();
    }

    @Override
    public String pathParam(String name) {
        return exchange.pathParam(name);
    }

    @Override
    public String queryParam(String name) {
        return exchange.queryParam(name);
    }

    @Override
    public String header(String name) {
        return exchange.header(name);
    }

    @Override
    public long contentLength() {
        return exchange.contentLength();
    }

    @Override
    public InputStream bodyInputStream() {
        body = new ByteArrayOutputStream();
        return new FilterInputStream(exchange.bodyInputStream()) {
            @Override
            public int read() throws IOException {
                int b = super.read();
                if (b >= 0 && body.size() <= MAX_KEPT_BODY_BYTES) {
                    body.write(b);
                }
                return b;
            }

            @Override
            public int read(byte[] buffer, int offset, int length) throws IOException {
                int n = super.read(buffer, offset, length);
                if (n > 0 && body.size() <= MAX_KEPT_BODY_BYTES) {
                    body.write(buffer, offset, n);
                }
                return n;
            }
        };
    }

    @Override
    public ApiExchange status(int answered) {
        this.status = answered;
        exchange.status(answered);
        return this;
    }

    @Override
    public ApiExchange header(String name, String value) {
        if ("Location".equalsIgnoreCase(name)) {
            location = value;
        }
        exchange.header(name, value);
        return this;
    }

    @Override
    public ApiExchange contentType(String contentType) {
        exchange.contentType(contentType);
        return this;
    }

    @Override
    public void result(byte[] answer) {
        exchange.result(answer);
    }

    @Override
    public void json(Object value) {
        exchange.json(value);
    }
}

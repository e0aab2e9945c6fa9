package dev.tickwheel.server.api;

import io.javalin.http.Context;
import java.io.InputStream;

/** An {@link ApiExchange} over Javalin's {@link Context}: how the standalone server runs the API's routes. */
final class JavalinExchange implements ApiExchange {

    private final Context ctx;

    JavalinExchange(Context ctx) {
        this.ctx = ctx;
    }

    @Override
    public String method() {
        return ctx.method().name();
    }

    @Override
    public String path() {
        return ctx.path();
    }

    @Override
    public String pathParam(String name) {
        return ctx.pathParam(name);
    }

    @Override
    public String queryParam(String name) {
        return ctx.queryParam(name);
    }

    @Override
    public String header(String name) {
        return ctx.header(name);
    }

    @Override
    public long contentLength() {
        return ctx.req().getContentLengthLong();
    }

    @Override
    public InputStream bodyInputStream() {
        return ctx.bodyInputStream();
    }

    @Override
    public ApiExchange status(int status) {
        ctx.status(status);
        return this;
    }

    @Override
    public ApiExchange header(String name, String value) {
        ctx.header(name, value);
        return this;
    }

    @Override
    public ApiExchange contentType(String contentType) {
        ctx.contentType(contentType);
        return this;
    }

    @Override
    public void result(byte[] body) {
        ctx.result(body);
    }

    @Override
    public void json(Object value) {
        ctx.json(value);
    }
}

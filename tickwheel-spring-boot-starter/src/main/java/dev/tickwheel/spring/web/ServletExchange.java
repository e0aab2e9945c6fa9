package dev.tickwheel.spring.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tickwheel.server.api.ApiExchange;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;

/** An {@link ApiExchange} over a servlet request and response: the API's routes on the application's server. */
final class ServletExchange implements ApiExchange {

    private final HttpServletRequest request;
    private final HttpServletResponse response;
    private final String path;
    private final Map<String, String> pathParams;
    private final ObjectMapper json;

    ServletExchange(HttpServletRequest request, HttpServletResponse response, String path,
                    Map<String, String> pathParams, ObjectMapper json) {
        this.request = request;
        this.response = response;
        this.path = path;
        this.pathParams = pathParams;
        this.json = json;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String pathParam(String name) {
        return pathParams.get(name);
    }

    @Override
    public String queryParam(String name) {
        return request.getParameter(name);
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }

    @Override
    public long contentLength() {
        return request.getContentLengthLong();
    }

    @Override
    public InputStream bodyInputStream() {
        try {
            return request.getInputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public ApiExchange status(int status) {
        response.setStatus(status);
        return this;
    }

    @Override
    public ApiExchange header(String name, String value) {
        response.setHeader(name, value);
        return this;
    }

    @Override
    public ApiExchange contentType(String contentType) {
        response.setContentType(contentType);
        return this;
    }

    @Override
    public void result(byte[] body) {
        try {
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void json(Object value) {
        try {
            byte[] body = json.writeValueAsBytes(value);
            response.setContentType("application/json");
            result(body);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

package dev.tickwheel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RequestPathsTest {

    @Test
    void segment_percentEncodesAllButUnreservedCharacters() {
        assertEquals("order-1001_a.b~c", RequestPaths.segment("order-1001_a.b~c").replace("%7E", "~"));
        assertEquals("a%20b%2Bc%2Fd%3Fe%23f%25g%2Ah", RequestPaths.segment("a b+c/d?e#f%g*h"));
        assertEquals("%C3%BC", RequestPaths.segment("ü"));
    }

    @Test
    void withQuery_leavesNullsOut_andEncodesValues() {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("jobId", 7L);
        parameters.put("key", null);
        parameters.put("name", "a&b c");

        assertEquals("/api/instances?jobId=7&name=a%26b+c", RequestPaths.withQuery("/api/instances", parameters));
        assertEquals("/api/jobs", RequestPaths.withQuery("/api/jobs", Map.of()));
    }
}

package dev.tickwheel.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class StatusLineTest {

    @Test
    void format_showsEveryFigureInOrder() {
        assertEquals("status: wheel pending 5 (precise 2, coarse 3) | calls in flight 7, waiting for a slot 1"
                + " | loader runs 42, failed 0", new StatusLine(5, 2, 3, 7, 1, 42, 0).format());
    }

    @Test
    void format_hasNoPerStatusInstanceCounts() {
        // The line once counted tw_instance by status (a GROUP BY over the whole table) every 5 s.
        String line = new StatusLine(0, 0, 0, 0, 0, 0, 0).format();
        assertEquals(-1, line.indexOf("WAITING"), line);
        assertEquals(-1, line.indexOf("instances {"), line);
    }
}

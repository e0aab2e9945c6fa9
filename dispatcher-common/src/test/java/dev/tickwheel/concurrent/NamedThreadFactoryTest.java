package dev.tickwheel.concurrent;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class NamedThreadFactoryTest {

    @Test
    void newThread_successiveCalls_countFromOne() {
        NamedThreadFactory factory = new NamedThreadFactory("dispatch", false);

        assertEquals("tickwheel-dispatch-1", factory.newThread(() -> { }).getName());
        assertEquals("tickwheel-dispatch-2", factory.newThread(() -> { }).getName());
    }

    @Test
    void newThread_daemonFlag_isApplied() {
        assertTrue(new NamedThreadFactory("wheel", true).newThread(() -> { }).isDaemon());
        assertFalse(new NamedThreadFactory("wheel", false).newThread(() -> { }).isDaemon());
    }

    @Test
    void constructor_roleWithSpacesOrFormatCharacters_throwsNamingRole() {
        IllegalArgumentException spaces = assertThrows(IllegalArgumentException.class,
                () -> new NamedThreadFactory("my loader", true));
        IllegalArgumentException format = assertThrows(IllegalArgumentException.class,
                () -> new NamedThreadFactory("loader-%d", true));

        assertEquals("role must be letters, digits, '.', '_' or '-' (starting with a letter or digit), got 'my loader'",
                spaces.getMessage());
        assertTrue(format.getMessage().endsWith("got 'loader-%d'"), format.getMessage());
    }
}

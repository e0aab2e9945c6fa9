package dev.tickwheel.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean method the in-process handler of that name: jobs whose target is {@code {"type": "HANDLER", "name":
 * ...}} run it. The method takes no argument or one {@link dev.tickwheel.server.dispatch.JobContext}; returning
 * normally records SUCCEEDED, throwing fails the attempt (retried as the job's retry policy says). It is called
 * through the bean's proxy, so {@code @Transactional} and other advice apply. On a bean class implementing
 * {@link dev.tickwheel.server.dispatch.JobHandler}, names that handler (default: the bean's name).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface TickwheelHandler {

    /** The handler's name, unique in the application. */
    String value();
}

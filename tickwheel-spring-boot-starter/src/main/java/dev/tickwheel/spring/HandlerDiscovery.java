package dev.tickwheel.spring;

import dev.tickwheel.server.JobSpec;
import dev.tickwheel.server.TickwheelServer;
import dev.tickwheel.server.dispatch.AsyncJobHandler;
import dev.tickwheel.server.dispatch.JobContext;
import dev.tickwheel.server.dispatch.JobHandler;
import dev.tickwheel.server.job.Target;
import dev.tickwheel.time.ScheduleSpec;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the application's handlers and code-declared jobs among the bean definitions, without creating a bean:
 * {@link JobHandler} and {@link AsyncJobHandler} beans, and bean methods annotated {@link TickwheelHandler} or
 * {@link TickwheelJob}. Each is registered on the engine's builder as a handler that looks its bean up when first
 * called (calls begin only once every singleton exists) and calls it through the bean as the context holds it: the
 * proxy, if any, so that {@code @Transactional} applies.
 *
 * <p>Built once, on the thread creating the engine bean.
 */
final class HandlerDiscovery {

    private final Map<String, JobHandler> handlers = new TreeMap<>();
    private final Map<String, AsyncJobHandler> asyncHandlers = new TreeMap<>();
    private final List<JobSpec> jobs = new ArrayList<>();
    /** Handler name → where it was found, to name both when two share a name. */
    private final Map<String, String> origins = new TreeMap<>();

    private HandlerDiscovery() {
    }

    /**
     * Looks through every bean definition of {@code beanFactory}.
     *
     * @throws IllegalStateException naming the beans if two handlers share a name or an annotated method cannot be a
     *                               handler (parameters other than none or one {@link JobContext})
     */
    static HandlerDiscovery scan(ConfigurableListableBeanFactory beanFactory) {
        HandlerDiscovery found = new HandlerDiscovery();
        for (String beanName : beanFactory.getBeanNamesForType(JobHandler.class, true, false)) {
            found.add(found.handlers, nameOf(beanFactory, beanName),
                    context -> beanFactory.getBean(beanName, JobHandler.class).handle(context), "bean " + beanName);
        }
        for (String beanName : beanFactory.getBeanNamesForType(AsyncJobHandler.class, true, false)) {
            found.add(found.asyncHandlers, nameOf(beanFactory, beanName),
                    context -> beanFactory.getBean(beanName, AsyncJobHandler.class).handle(context),
                    "bean " + beanName);
        }
        for (String beanName : beanFactory.getBeanDefinitionNames()) {
            Class<?> type = beanFactory.getType(beanName, false);
            if (type != null) {
                found.scanMethods(beanFactory, beanName, ClassUtils.getUserClass(type));
            }
        }
        return found;
    }

    private static String nameOf(ConfigurableListableBeanFactory beanFactory, String beanName) {
        Class<?> type = beanFactory.getType(beanName, false);
        TickwheelHandler named = type == null ? null
                : AnnotatedElementUtils.findMergedAnnotation(ClassUtils.getUserClass(type), TickwheelHandler.class);
        return named != null ? named.value() : beanName;
    }

    private void scanMethods(ConfigurableListableBeanFactory beanFactory, String beanName, Class<?> userClass) {
        Map<Method, TickwheelHandler> named = MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<TickwheelHandler>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, TickwheelHandler.class));
        Map<Method, TickwheelJob> declared = MethodIntrospector.selectMethods(userClass,
                (MethodIntrospector.MetadataLookup<TickwheelJob>) method ->
                        AnnotatedElementUtils.findMergedAnnotation(method, TickwheelJob.class));
        named.forEach((method, annotation) ->
                addMethod(beanFactory, beanName, method, annotation.value()));
        declared.forEach((method, job) -> {
            TickwheelHandler alsoNamed = named.get(method);
            String handlerName = alsoNamed != null ? alsoNamed.value() : job.name();
            if (alsoNamed == null) {
                addMethod(beanFactory, beanName, method, handlerName);
            }
            jobs.add(JobSpec.of(job.name(), scheduleOf(job, method), Target.handler(handlerName)));
        });
    }

    private static ScheduleSpec scheduleOf(TickwheelJob job, Method method) {
        boolean cron = !job.cron().isBlank();
        if (cron == (job.fixedRateMs() > 0)) {
            throw new IllegalStateException("@TickwheelJob '" + job.name() + "' on " + method
                    + " must give exactly one of cron and fixedRateMs (> 0)");
        }
        return cron ? ScheduleSpec.cron(job.cron(), job.zone()) : ScheduleSpec.fixedRate(job.fixedRateMs(), null);
    }

    private void addMethod(ConfigurableListableBeanFactory beanFactory, String beanName, Method method,
                           String handlerName) {
        Class<?>[] parameters = method.getParameterTypes();
        boolean takesContext = parameters.length == 1 && parameters[0] == JobContext.class;
        if (parameters.length > 1 || (parameters.length == 1 && !takesContext)) {
            throw new IllegalStateException("handler '" + handlerName + "': " + method
                    + " must take no parameter or one JobContext");
        }
        add(handlers, handlerName, context -> invoke(beanFactory.getBean(beanName), method, takesContext, context),
                "method " + method.getDeclaringClass().getName() + "." + method.getName() + " of bean " + beanName);
    }

    private static void invoke(Object bean, Method method, boolean takesContext, JobContext context)
            throws Exception {
        // The bean as the context holds it: a JDK proxy has the interface's method, a CGLIB one the class's.
        Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(invocable);
        try {
            if (takesContext) {
                invocable.invoke(bean, context);
            } else {
                invocable.invoke(bean);
            }
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    private <H> void add(Map<String, H> into, String name, H handler, String origin) {
        String earlier = origins.putIfAbsent(name, origin);
        if (earlier != null) {
            throw new IllegalStateException("two handlers are named '" + name + "': " + earlier + " and " + origin);
        }
        into.put(name, handler);
    }

    /** Registers every handler found on {@code builder}. */
    void registerOn(TickwheelServer.Builder builder) {
        handlers.forEach(builder::handler);
        asyncHandlers.forEach(builder::asyncHandler);
    }

    /** The jobs declared with {@link TickwheelJob}, in the order found. */
    List<JobSpec> declaredJobs() {
        return List.copyOf(jobs);
    }
}

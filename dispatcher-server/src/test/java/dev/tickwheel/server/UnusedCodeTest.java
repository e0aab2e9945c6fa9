package dev.tickwheel.server;

import static org.junit.jupiter.api.Assertions.fail;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaConstructor;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Fails, listing them, for methods and constructors of the main code of both modules that nothing in main code calls
 * or references. The call graph comes from ArchUnit's import of the compiled classes, not from reading the source.
 * The test fixtures (dispatcher-test-fixtures) are not scanned: tests and the bench call them.
 *
 * <p>Not counted as unused: overrides and implementations of a supertype's method (they are called through the
 * supertype, often the JDK's), record accessors and canonical constructors, {@code main}, compiler-made methods
 * (lambdas, bridges), enum {@code values}/{@code valueOf}, the private no-argument constructor that keeps a class of
 * static members from being instantiated, members of the Jackson DTO records (Jackson calls them reflectively), and
 * the allow-lists below. A method declared on a type counts as called when a call names it on a subtype.
 *
 * <p>The allow-lists fail too when an entry no longer matches anything unused, so they cannot go stale.
 */
class UnusedCodeTest {

    /**
     * Public embedding API: called by code that embeds Tickwheel (and by dispatcher-bench, whose classes are not
     * imported here), not by the server itself. An entry is {@code Class} (every public member of it) or
     * {@code Class#member}.
     */
    private static final Set<String> EMBEDDING_API = Set.of(
            // The engine's entry point and its builder: what an application embedding Tickwheel calls.
            "dev.tickwheel.server.TickwheelServer",
            "dev.tickwheel.server.TickwheelServer$Builder",
            // The two-tier wheel is usable alone (dispatcher-bench's TickwheelService peer drives it directly).
            "dev.tickwheel.server.wheel.InstanceTimeWheelService$Builder",
            // Its handle lookup, PowerJob's shape (the engine asks isPending, which allocates nothing).
            "dev.tickwheel.server.wheel.InstanceTimeWheelService#fetchTimerFuture",
            // The timer is a library of its own in dispatcher-common, driven directly by dispatcher-bench.
            "dev.tickwheel.timer.HashedWheelTimer",
            "dev.tickwheel.timer.HashedWheelTimer$Builder",
            "dev.tickwheel.timer.TimerFuture#deadlineNanos",
            // Time expressions are dispatcher-common's public schedule API: the window query and the type tag.
            "dev.tickwheel.time.PlannedExpression#triggersIn",
            "dev.tickwheel.time.TimeExpression#type",
            // Decodes an id into time, node and sequence: the generator's answer to "where did this id come from".
            "dev.tickwheel.id.SnowflakeIdGenerator#describe",
            // Opening the store from a URL or a full configuration: dispatcher-bench and embedders do it.
            "dev.tickwheel.server.store.jdbc.JdbcStores#open",
            "dev.tickwheel.server.store.jdbc.JdbcStoreConfig$Builder",
            // The engine's per-instance statements on a caller's connection: dispatcher-bench's store ceiling runs
            // them from bare loops, so that it measures exactly what the engine sends.
            "dev.tickwheel.server.store.jdbc.InstancePathStatements",
            // Jobs declared in code, and finding a declared job's id: the Spring Boot starter's lifecycle and the
            // applications using it call these (tickwheel-spring-boot-starter is not imported here).
            "dev.tickwheel.server.JobService#declare",
            "dev.tickwheel.server.JobService#findByName",
            // A context of a job completing when its call does: what an application builds to test its handlers.
            "dev.tickwheel.server.dispatch.JobContext#<init>",
            // The outbound guard's resolver: an application with a DNS of its own (and the guard's tests, to make a
            // name resolve to what they need) sets it; the server keeps the JDK's.
            "dev.tickwheel.server.dispatch.guard.OutboundGuard$Builder#resolver");

    /**
     * Members main code does not call but that are there on purpose, each with its reason: API that callers of a
     * public class use, and hooks that tests use to look inside a concurrent structure.
     */
    private static final Set<String> KEPT_ON_PURPOSE = Set.of(
            // Calls of every namespace, as before namespaces: what an embedding application without namespaces
            // calls, and the settings of the tests that give none of the newer options.
            "dev.tickwheel.server.InstanceService#list",
            "dev.tickwheel.server.WorkflowService#create",
            // A test server's settings with its own outbound guard (TestServers).
            "dev.tickwheel.server.app.ServerSettings#withOutbound",
            "dev.tickwheel.server.InstanceService#rerunAll",
            "dev.tickwheel.server.store.JobStore#insert",
            "dev.tickwheel.server.api.ApiSettings#<init>",
            "dev.tickwheel.server.app.ServerSettings#<init>",
            // The statements without a namespace, whose plans the plan tests read (main code builds them through
            // the three-argument forms).
            "dev.tickwheel.server.store.jdbc.InstanceSql#selectLatest",
            "dev.tickwheel.server.store.jdbc.JobSql#selectByName",
            // The lease keeper's defaults in one place; the server builds its settings from its own builder's.
            "dev.tickwheel.server.cluster.LeaseKeeper$Settings#defaults",
            // The fenced INTERRUPT of this member's own claim: recovery interrupts only foreign claims now
            // (interruptForeign), but the store's state machine keeps every transition, and the contract tests
            // reach INTERRUPTED rows through it.
            "dev.tickwheel.server.store.InstanceStore#markInterrupted",
            // Counts by status for an embedding application (dispatcher-bench's EndToEndRun waits on it); the
            // server's own status line no longer counts the table.
            "dev.tickwheel.server.InstanceService#countByStatus",
            // JobSpec's builder-style copies: how an embedding application states a job (README, tests).
            "dev.tickwheel.server.JobSpec#withMisfirePolicy",
            // A webhook failure's parts, for a caller that classifies failures rather than reading the message.
            "dev.tickwheel.server.dispatch.webhook.WebhookException#reason",
            "dev.tickwheel.server.dispatch.webhook.WebhookException#responseBody",
            "dev.tickwheel.server.dispatch.webhook.WebhookException#status",
            // Client tuning with sound defaults; the server keeps the defaults, the connection tests set them.
            "dev.tickwheel.server.dispatch.webhook.WebhookInvoker$Builder#connectTimeout",
            "dev.tickwheel.server.dispatch.webhook.WebhookInvoker$Builder#idleEviction",
            "dev.tickwheel.server.dispatch.webhook.WebhookInvoker$Builder#ioThreads",
            // What is registered, compared with docs/openapi.yaml by OpenApiContractTest.
            "dev.tickwheel.server.api.ApiServer#routes",
            // A batcher's backlog, which BatcherTest reads to see what close() hands back.
            "dev.tickwheel.concurrent.Batcher#queued",
            // The handler deadline wheel's counters, which InProcessHandlersTest reads to see deadlines released.
            "dev.tickwheel.server.dispatch.InProcessHandlers#deadlineStats",
            // Test hooks of CallSlots: its invariant checker and the per-target count the stress tests read.
            "dev.tickwheel.server.dispatch.CallSlots#checkInvariants",
            "dev.tickwheel.server.dispatch.CallSlots#inFlight",
            "dev.tickwheel.server.dispatch.CallSlots#trackedJobs",
            "dev.tickwheel.server.dispatch.CallSlots#trackedTargets",
            "dev.tickwheel.server.dispatch.CallSlots$Ticket#jobId",
            "dev.tickwheel.server.dispatch.CallSlots$Ticket#target");

    @Test
    void everyMethodAndConstructorOfMainCodeHasACaller() {
        JavaClasses classes = new ClassFileImporter()
                .withImportOption(new ImportOption.DoNotIncludeTests())
                // dispatcher-common's test classes reach this class path as its test-jar
                .withImportOption(location -> !location.contains("-tests.jar"))
                // dispatcher-test-fixtures is main code by Maven's reckoning (the bench's programs use it), but its
                // callers are the process tests, which this rule does not count, and the bench, which is not on this
                // class path: each of its methods would show as unused. Left out, so that its calls into the engine
                // do not count as callers either.
                .withImportOption(location -> !location.contains("dispatcher-test-fixtures"))
                .importPackages("dev.tickwheel");

        Set<String> unused = new TreeSet<>();
        Set<String> allowedAndUnused = new TreeSet<>();
        Set<String> allowedMembers = new TreeSet<>();
        for (JavaClass owner : classes) {
            for (JavaCodeUnit unit : owner.getCodeUnits()) {
                if (isExempt(owner, unit) || hasCaller(owner, unit)) {
                    continue;
                }
                String key = describe(unit);
                String allowedBy = allowEntry(owner, unit);
                if (allowedBy != null) {
                    allowedAndUnused.add(allowedBy);
                    allowedMembers.add(key);
                } else {
                    unused.add(key);
                }
            }
        }

        List<String> problems = new ArrayList<>();
        if (!unused.isEmpty()) {
            problems.add("Methods and constructors that nothing in main code calls (remove them, or give them a caller):\n  "
                    + String.join("\n  ", unused));
        }
        Set<String> stale = new TreeSet<>(EMBEDDING_API);
        stale.addAll(KEPT_ON_PURPOSE);
        stale.removeAll(allowedAndUnused);
        if (!stale.isEmpty()) {
            problems.add("Allow-list entries that match nothing unused any more (remove them):\n  "
                    + String.join("\n  ", stale));
        }
        // Not a failure: the allowed members in the test report, so the lists stay visible.
        System.out.println("UnusedCodeTest: allowed without a caller in main code:\n  "
                + String.join("\n  ", allowedMembers));
        if (!problems.isEmpty()) {
            fail(String.join("\n\n", problems));
        }
    }

    private static String allowEntry(JavaClass owner, JavaCodeUnit unit) {
        String member = owner.getName() + "#" + unit.getName();
        for (Set<String> list : List.of(EMBEDDING_API, KEPT_ON_PURPOSE)) {
            if (list.contains(member)) {
                return member;
            }
            if (list.contains(owner.getName()) && unit.getModifiers().contains(JavaModifier.PUBLIC)) {
                return owner.getName();
            }
        }
        return null;
    }

    private static boolean hasCaller(JavaClass owner, JavaCodeUnit unit) {
        if (unit.getAccessesToSelf().stream().anyMatch(access -> !access.getOrigin().equals(unit))) {
            return true;
        }
        if (unit instanceof JavaMethod) {
            // Declared here, called on a subtype that inherits or implements it.
            for (JavaClass subtype : owner.getAllSubclasses()) {
                for (JavaMethod candidate : subtype.getMethods()) {
                    if (candidate.getName().equals(unit.getName())
                            && candidate.getRawParameterTypes().equals(unit.getRawParameterTypes())
                            && candidate.getAccessesToSelf().stream()
                                    .anyMatch(access -> !access.getOrigin().equals(candidate))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean isExempt(JavaClass owner, JavaCodeUnit unit) {
        String name = unit.getName();
        if (unit.getModifiers().contains(JavaModifier.SYNTHETIC)
                || unit.getModifiers().contains(JavaModifier.BRIDGE)
                || name.equals("<clinit>")
                || name.startsWith("lambda$")) {
            return true;
        }
        if (name.equals("main") && unit.getModifiers().contains(JavaModifier.STATIC)) {
            return true;
        }
        if (owner.isEnum() && (name.equals("values") || name.equals("valueOf"))) {
            return true;
        }
        Class<?> type = owner.reflect();
        if (type.isRecord()) {
            if (owner.getPackageName().contains(".api.dto")) {
                return true; // Jackson reads and builds these reflectively
            }
            if (isRecordAccessorOrCanonicalConstructor(type, unit)) {
                return true;
            }
        }
        if (unit instanceof JavaConstructor
                && unit.getModifiers().contains(JavaModifier.PRIVATE)
                && unit.getRawParameterTypes().isEmpty()) {
            return true; // keeps a class of static members from being instantiated
        }
        return unit instanceof JavaMethod && overridesASupertypeMethod(type, (JavaMethod) unit);
    }

    private static boolean isRecordAccessorOrCanonicalConstructor(Class<?> record, JavaCodeUnit unit) {
        RecordComponent[] components = record.getRecordComponents();
        List<String> unitParameters = unit.getRawParameterTypes().stream().map(JavaClass::getName).toList();
        if (unit instanceof JavaConstructor) {
            return Arrays.stream(components).map(c -> c.getType().getName()).toList().equals(unitParameters);
        }
        return unitParameters.isEmpty()
                && Arrays.stream(components).anyMatch(c -> c.getName().equals(unit.getName()));
    }

    private static boolean overridesASupertypeMethod(Class<?> type, JavaMethod method) {
        if (method.getModifiers().contains(JavaModifier.STATIC) || method.getModifiers().contains(JavaModifier.PRIVATE)) {
            return false;
        }
        Class<?>[] parameters = method.getRawParameterTypes().stream().map(JavaClass::reflect).toArray(Class<?>[]::new);
        List<Class<?>> supertypes = new ArrayList<>();
        collectSupertypes(type, supertypes);
        for (Class<?> supertype : supertypes) {
            try {
                Method candidate = supertype.getDeclaredMethod(method.getName(), parameters);
                if (!Modifier.isPrivate(candidate.getModifiers()) && !Modifier.isStatic(candidate.getModifiers())) {
                    return true;
                }
            } catch (NoSuchMethodException notThere) {
                // look further up
            }
        }
        return false;
    }

    private static void collectSupertypes(Class<?> type, List<Class<?>> into) {
        Class<?> superclass = type.getSuperclass();
        if (superclass != null) {
            into.add(superclass);
            collectSupertypes(superclass, into);
        }
        for (Class<?> implemented : type.getInterfaces()) {
            into.add(implemented);
            collectSupertypes(implemented, into);
        }
        if (type.isInterface()) {
            into.add(Object.class);
        }
    }

    private static String describe(JavaCodeUnit unit) {
        String parameters = unit.getRawParameterTypes().stream()
                .map(JavaClass::getSimpleName)
                .reduce((a, b) -> a + ", " + b)
                .orElse("");
        return unit.getOwner().getName() + "#" + unit.getName() + "(" + parameters + ")";
    }
}

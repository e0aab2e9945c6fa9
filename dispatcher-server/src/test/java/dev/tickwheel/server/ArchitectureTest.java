package dev.tickwheel.server;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.belongToAnyOf;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.tickwheel.concurrent.NamedThreadFactory;
import dev.tickwheel.server.store.Shards;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The package rules of docs/ARCHITECTURE.md, checked on the compiled main classes of both modules (ArchUnit reads
 * the byte code, so a rule cannot drift from what the code really imports and calls).
 */
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        // dispatcher-common arrives as target/classes in a reactor build and as a jar otherwise: both count; its
        // test-jar (ManualClock, ...) does not.
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar") && !location.contains("/test-classes/"))
                .importPackages("dev.tickwheel");
    }

    @Test
    void packages_formNoCycles() {
        slices().matching("dev.tickwheel.(**)").should().beFreeOfCycles().check(main);
    }

    @Test
    void common_dependsOnNothingOfTheServer() {
        noClasses().that().resideInAnyPackage("dev.tickwheel.timer..", "dev.tickwheel.time..", "dev.tickwheel.id..",
                        "dev.tickwheel.concurrent..")
                .should().dependOnClassesThat().resideInAPackage("dev.tickwheel.server..")
                .check(main);
    }

    @Test
    void store_knowsNoHttp() {
        noClasses().that().resideInAPackage("dev.tickwheel.server.store..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tickwheel.server.api..", "io.javalin..",
                        "org.eclipse.jetty..", "jakarta.servlet..", "org.apache.hc..",
                        "dev.tickwheel.server.dispatch..")
                .check(main);
    }

    @Test
    void engineParts_neverImportTheApiTheApplicationOrMetrics() {
        noClasses().that().resideInAnyPackage("dev.tickwheel.server", "dev.tickwheel.server.wheel..",
                        "dev.tickwheel.server.schedule..", "dev.tickwheel.server.store..",
                        "dev.tickwheel.server.cluster..",
                        "dev.tickwheel.server.dispatch..", "dev.tickwheel.server.job..",
                        "dev.tickwheel.server.instance..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tickwheel.server.api..",
                        "dev.tickwheel.server.app..", "dev.tickwheel.server.metrics..")
                .check(main);
    }

    @Test
    void cluster_knowsTheStoreNotTheDispatchMachinery() {
        noClasses().that().resideInAPackage("dev.tickwheel.server.cluster..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tickwheel.server.dispatch..",
                        "dev.tickwheel.server.schedule..", "dev.tickwheel.server.wheel..",
                        "dev.tickwheel.server.store.jdbc..")
                .check(main);
    }

    @Test
    void api_talksToTheEngineOnlyThroughItsServicesAndDomainRecords() {
        noClasses().that().resideInAPackage("dev.tickwheel.server.api..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tickwheel.server.store.jdbc..",
                        "dev.tickwheel.server.schedule..", "dev.tickwheel.server.dispatch..",
                        "dev.tickwheel.server.wheel..", "dev.tickwheel.timer..")
                .check(main);
    }

    @Test
    void domainRecords_dependOnNoMachinery() {
        noClasses().that().resideInAnyPackage("dev.tickwheel.server.job..", "dev.tickwheel.server.instance..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tickwheel.server.store..",
                        "dev.tickwheel.server.dispatch..", "dev.tickwheel.server.schedule..",
                        "dev.tickwheel.server.wheel..", "java.sql..")
                .check(main);
    }

    @Test
    void productCode_neverDependsOnTheTestFixtures() {
        noClasses().that().resideOutsideOfPackage("dev.tickwheel.fixtures..")
                .should().dependOnClassesThat().resideInAPackage("dev.tickwheel.fixtures..")
                .check(main);
    }

    @Test
    void testFixtures_talkToServersOverHttpAndJdbc_notThroughTheirClasses() {
        // The servers run in other JVMs; of the product the fixtures know only the shard rule and a thread factory.
        noClasses().that().resideInAPackage("dev.tickwheel.fixtures..")
                .should().dependOnClassesThat(resideInAPackage("dev.tickwheel..")
                        .and(not(resideInAPackage("dev.tickwheel.fixtures..")))
                        .and(not(belongToAnyOf(Shards.class, NamedThreadFactory.class))))
                .check(main);
    }

    @Test
    void classNames_sayWhatTheyDo() {
        noClasses().should().haveSimpleNameEndingWith("Utils").orShould().haveSimpleNameEndingWith("Helper")
                .orShould().haveSimpleNameEndingWith("Manager").orShould().haveSimpleNameStartingWith("Common")
                .check(main);
    }

    @Test
    void dispatcherCommon_doesNotLog() {
        noClasses().that().resideInAnyPackage("dev.tickwheel.timer..", "dev.tickwheel.time..", "dev.tickwheel.id..",
                        "dev.tickwheel.concurrent..")
                .should().dependOnClassesThat().resideInAnyPackage("org.slf4j..", "ch.qos.logback..")
                .check(main);
    }

    @Test
    void applicationClasses_liveInTheAppPackage() {
        classes().that().haveSimpleNameEndingWith("Settings").and().resideInAPackage("dev.tickwheel.server")
                .should().resideInAPackage("dev.tickwheel.server.app").allowEmptyShould(true)
                .check(main);
    }
}

package io.gpupool.scheduler.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** The engine is a pure function of its inputs: no Kafka, no clock, no environment, no threads, no unseeded randomness. */
class CoreArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.gpupool.scheduler.core");

    @Test
    void coreDoesNotUseKafkaOrAvro() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("org.apache.kafka..", "org.apache.avro..")
                .check(CORE);
    }

    @Test
    void coreDoesNotReadTheClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethodWhere(named("any java.time now()", c -> c.getName().equals("now")
                        && c.getTargetOwner().getPackageName().startsWith("java.time")))
                .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
                .check(CORE);
    }

    /** What the engine decides must not depend on the machine it runs on. */
    @Test
    void coreDoesNotReadTheEnvironment() {
        noClasses().should().callMethodWhere(named("System.getenv/getProperty/getProperties",
                        c -> c.getTargetOwner().isEquivalentTo(System.class)
                                && Set.of("getenv", "getProperty", "getProperties").contains(c.getName())))
                .orShould().callMethodWhere(named("Integer.getInteger, Long.getLong, Boolean.getBoolean (system properties)",
                        c -> Set.of("getInteger", "getLong", "getBoolean").contains(c.getName())
                                && Set.of(Integer.class.getName(), Long.class.getName(), Boolean.class.getName())
                                .contains(c.getTargetOwner().getName())))
                .orShould().callMethod(Runtime.class, "availableProcessors")
                .orShould().callMethod(System.class, "identityHashCode", Object.class)
                .check(CORE);
    }

    /** One engine step runs on the caller's thread: another thread's timing would enter the outputs. */
    @Test
    void coreStartsNoThreads() {
        noClasses().should().dependOnClassesThat().areAssignableTo(Thread.class)
                .orShould().dependOnClassesThat().resideInAPackage("java.util.concurrent")
                .orShould().callMethodWhere(named("parallelStream/parallel", c -> c.getName().equals("parallelStream")
                        || c.getName().equals("parallel") && c.getTargetOwner().getPackageName().equals("java.util.stream")))
                .check(CORE);
    }

    /** java.lang.Math's transcendental functions may differ in the last bit between JVMs and CPUs; StrictMath may not. */
    @Test
    void coreComputesTranscendentalFunctionsBitExactly() {
        DeterminismRules.noTranscendentalMath().check(CORE);
    }

    /** Double.toString changed in JDK 19: decision text, reasons and evidence format numbers with DecimalText. */
    @Test
    void coreWritesNoFloatingPointTextThroughTheJdk() {
        DeterminismRules.noFloatingPointText().check(CORE);
    }

    @Test
    void coreHasNoUnseededRandomness() {
        noClasses().should().callConstructor(Random.class)
                .orShould().callConstructor(SplittableRandom.class)
                .orShould().callMethod(Math.class, "random")
                .orShould().callMethod(StrictMath.class, "random")
                .orShould().callMethod(Collections.class, "shuffle", List.class)
                .orShould().dependOnClassesThat().areAssignableTo(ThreadLocalRandom.class)
                .orShould().dependOnClassesThat().areAssignableTo(SecureRandom.class)
                .orShould().callMethod(UUID.class, "randomUUID")
                .check(CORE);
    }

    @Test
    void coreDoesNotIterateHashMapsOrHashSets() {
        // HashMap is fine for lookups; iteration order must come from ordered collections
        noClasses().should().callMethod(HashMap.class, "values")
                .orShould().callMethod(HashMap.class, "keySet")
                .orShould().callMethod(HashMap.class, "entrySet")
                .orShould().callMethod(HashMap.class, "forEach", BiConsumer.class)
                .orShould().callMethod(HashSet.class, "iterator")
                .check(CORE);
    }

    /** A HashMap/HashSet held as a Map/Set and walked through the interface slips past the rule above. */
    @Test
    void coreDoesNotIterateHashCollectionsThroughTheirInterfaces() {
        DeterminismRules.noWalkOfHashCollections().check(CORE);
    }

    /** Map.of/Set.of and their copies iterate in an order randomised per JVM run; the collectors give hash sets/maps. */
    @Test
    void coreDoesNotIterateImmutableMapsOrSets() {
        DeterminismRules.noWalkOfImmutableMapsOrSets().check(CORE);
    }

    private static DescribedPredicate<JavaCall<?>> named(final String description,
                                                         final Predicate<JavaCall<?>> p) {
        return DescribedPredicate.describe(description, p::test);
    }
}

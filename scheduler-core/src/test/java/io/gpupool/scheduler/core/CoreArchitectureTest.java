package io.gpupool.scheduler.core;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZonedDateTime;
import java.util.HashSet;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The engine is a pure function of its inputs: no Kafka, no clock, no unseeded randomness. */
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
                .orShould().callMethod(Instant.class, "now")
                .orShould().callMethod(LocalDateTime.class, "now")
                .orShould().callMethod(LocalDate.class, "now")
                .orShould().callMethod(ZonedDateTime.class, "now")
                .orShould().dependOnClassesThat().areAssignableTo(Clock.class)
                .check(CORE);
    }

    /** java.lang.Math's transcendental functions may differ in the last bit between JVMs and CPUs; StrictMath may not. */
    @Test
    void coreComputesTranscendentalFunctionsBitExactly() {
        noClasses().should().callMethod(Math.class, "pow", double.class, double.class)
                .orShould().callMethod(Math.class, "exp", double.class)
                .orShould().callMethod(Math.class, "log", double.class)
                .orShould().callMethod(Math.class, "log10", double.class)
                .orShould().callMethod(Math.class, "cbrt", double.class)
                .check(CORE);
    }

    @Test
    void coreHasNoUnseededRandomness() {
        noClasses().should().callConstructor(Random.class)
                .orShould().callMethod(Math.class, "random")
                .orShould().dependOnClassesThat().areAssignableTo(ThreadLocalRandom.class)
                .orShould().dependOnClassesThat().areAssignableTo(SecureRandom.class)
                .orShould().callMethod(UUID.class, "randomUUID")
                .check(CORE);
    }

    @Test
    void coreDoesNotIterateHashSets() {
        // HashMap is fine for lookups; iteration order must come from ordered collections
        noClasses().should().callMethod(java.util.HashMap.class, "values")
                .orShould().callMethod(java.util.HashMap.class, "keySet")
                .orShould().callMethod(java.util.HashMap.class, "entrySet")
                .orShould().callMethod(java.util.HashMap.class, "forEach", BiConsumer.class)
                .orShould().callMethod(HashSet.class, "iterator")
                .check(CORE);
    }
}

package io.gpupool.cli;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * Rules over every production module at once: this module depends on all of them, so its test
 * class path holds all of their main classes.
 */
class ProjectArchitectureTest {

    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(new ImportOption.DoNotIncludeTests())
            .importPackages("io.gpupool");

    @Test
    void seesEveryModule() {
        assertThat(PRODUCTION.containPackage("io.gpupool.scheduler.core")).isTrue();
        assertThat(PRODUCTION.containPackage("io.gpupool.metrics")).isTrue();
        assertThat(PRODUCTION.containPackage("io.gpupool.simulator")).isTrue();
        assertThat(PRODUCTION.containPackage("io.gpupool.sink")).isTrue();
    }

    /** A package cycle ties packages (and often modules) together so neither can change or move alone. */
    @Test
    void noPackageCycles() {
        slices().matching("io.gpupool.(**)").should().beFreeOfCycles().check(PRODUCTION);
    }
}

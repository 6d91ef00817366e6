package io.gpupool.scheduler.journal;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.gpupool.scheduler.core.DeterminismRules;
import org.junit.jupiter.api.Test;

/**
 * This module turns journal entries into engine inputs and engine outputs into decision, node-command,
 * snapshot and job-book bytes, which a replay in another JVM must reproduce: the engine's
 * determinism rules hold here too.
 */
class JournalArchitectureTest {
    private static final JavaClasses JOURNAL = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.gpupool.scheduler.journal");

    @Test
    void journalComputesTranscendentalFunctionsBitExactly() {
        DeterminismRules.noTranscendentalMath().check(JOURNAL);
    }

    @Test
    void journalWritesNoFloatingPointTextThroughTheJdk() {
        DeterminismRules.noFloatingPointText().check(JOURNAL);
    }

    @Test
    void journalDoesNotIterateImmutableMapsOrSets() {
        DeterminismRules.noWalkOfImmutableMapsOrSets().check(JOURNAL);
    }

    @Test
    void journalDoesNotIterateHashCollections() {
        DeterminismRules.noWalkOfHashCollections().check(JOURNAL);
    }
}

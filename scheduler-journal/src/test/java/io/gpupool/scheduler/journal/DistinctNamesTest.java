package io.gpupool.scheduler.journal;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * This module translates between the engine's types and the wire's: a core type named like an Avro
 * type forces qualified names into every translator and invites using one for the other.
 */
class DistinctNamesTest {

    @Test
    void noEngineTypeSharesItsNameWithAWireType() {
        final JavaClasses classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.gpupool.scheduler.core", "io.gpupool.avro");
        final Set<String> wire = names(classes, "io.gpupool.avro");
        final Set<String> engine = names(classes, "io.gpupool.scheduler.core");
        assertThat(wire).as("Avro types were imported").contains("NodeCommand", "JobEvent");
        assertThat(engine).as("engine types were imported").contains("PoolEngine", "NodeInstruction");
        final Set<String> shared = new TreeSet<>(engine);
        shared.retainAll(wire);
        assertThat(shared).as("engine types named like Avro types (rename the engine's)").isEmpty();
    }

    /** Simple names of top-level and nested types, without generated builders and anonymous classes. */
    private static Set<String> names(final JavaClasses classes, final String pkg) {
        final Set<String> out = new TreeSet<>();
        for (final JavaClass c : classes) {
            if (c.getPackageName().equals(pkg) && !c.isAnonymousClass() && !c.getSimpleName().isEmpty()
                    && !c.getSimpleName().equals("Builder")) {
                out.add(c.getSimpleName());
            }
        }
        return out;
    }
}

package io.gpupool.localstack.broker;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Command lines for child JVMs that run classes from this JVM's own classpath: the Kafka server
 * classes come from Maven Central with the project, so nothing needs installing.
 */
final class ChildJvm {
    /**
     * Extra JVM flags for the broker and its storage tool, split at whitespace, after the heap flags (so they can
     * override them). The test suite sets {@code -XX:TieredStopAtLevel=1}: its brokers live for seconds, which the
     * optimizing compiler spends CPU on without paying back.
     */
    static final String EXTRA_FLAGS_ENV = "GPUPOOL_BROKER_JAVA_OPTS";

    private ChildJvm() {
    }

    /** The java launcher of the running JVM, so the child gets the same Java version. */
    static String javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /**
     * This JVM's classpath with every entry made absolute, because the child may resolve paths
     * differently (and a shaded {@code java -jar} run reports the jar relative to its start directory).
     */
    static String classpath() {
        final String raw = System.getProperty("java.class.path", "");
        if (raw.isBlank()) {
            throw new IllegalStateException("java.class.path is empty: cannot find the Kafka server classes for the broker JVM");
        }
        return Arrays.stream(raw.split(File.pathSeparator))
                .filter(entry -> !entry.isBlank())
                .map(entry -> Path.of(entry).toAbsolutePath().normalize().toString())
                .collect(Collectors.joining(File.pathSeparator));
    }

    /**
     * {@code setsid}, where there is one: the child then has its own session, so a Ctrl-C in the
     * terminal reaches only gpupool, which stops its services in order (the broker last) instead of
     * the broker dying underneath them. setsid execs in place (the child is no group leader), so the
     * pid we hold stays the JVM's. The child still exits with its parent through {@link BrokerMain}.
     */
    static Optional<String> ownSession() {
        for (final String candidate : new String[] {"/usr/bin/setsid", "/bin/setsid"}) {
            if (Files.isExecutable(Path.of(candidate))) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** {@code [setsid] java -Xmx.. <jvmFlags> <$GPUPOOL_BROKER_JAVA_OPTS> -cp <classpath> mainClass args...}. */
    static List<String> command(final String heap, final List<String> jvmFlags,
                                final String mainClass, final List<String> args) {
        return command(heap, jvmFlags, extraFlags(System.getenv(EXTRA_FLAGS_ENV)), mainClass, args);
    }

    static List<String> command(final String heap, final List<String> jvmFlags, final List<String> extraFlags,
                                final String mainClass, final List<String> args) {
        final List<String> command = new ArrayList<>();
        ownSession().ifPresent(command::add);
        command.add(javaExecutable());
        command.add("-Xmx" + heap);
        command.add("-Xms64m");
        command.add("-Djava.awt.headless=true");
        command.addAll(jvmFlags);
        command.addAll(extraFlags);
        command.add("-cp");
        command.add(classpath());
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    /** The flags of {@link #EXTRA_FLAGS_ENV}'s value; none when it is unset or blank. */
    static List<String> extraFlags(final String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        return List.of(value.trim().split("\\s+"));
    }
}

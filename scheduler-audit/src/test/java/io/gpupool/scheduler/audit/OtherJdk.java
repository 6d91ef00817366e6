package io.gpupool.scheduler.audit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * An installed JDK of another major version than the running one, for the cross-JVM replay: the
 * system property {@code gpupool.other.jdk} or the environment variable {@code GPUPOOL_OTHER_JDK}
 * (a JDK home; it may be the running JDK, whose second run still has its own Map.of salt) when set,
 * else the first JDK under /usr/lib/jvm (by name) whose {@code release} file
 * names another major version.
 */
record OtherJdk(Path home, int major) {
    static final String PROPERTY = "gpupool.other.jdk";
    static final String ENV = "GPUPOOL_OTHER_JDK";
    private static final Path INSTALLED = Path.of("/usr/lib/jvm");
    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(1\\.)?(\\d+)");

    Path java() {
        return home.resolve("bin").resolve("java");
    }

    static Optional<OtherJdk> find() {
        final String named = System.getProperty(PROPERTY, System.getenv(ENV));
        if (named != null && !named.isBlank()) {
            return Optional.of(of(Path.of(named)).orElseThrow(() -> new IllegalStateException(
                    PROPERTY + "/" + ENV + "=" + named + " is not a JDK home with bin/java and a release file")));
        }
        if (!Files.isDirectory(INSTALLED)) {
            return Optional.empty();
        }
        final int running = Runtime.version().feature();
        try (Stream<Path> homes = Files.list(INSTALLED)) {
            final List<Path> sorted = homes.sorted().toList();
            return sorted.stream().map(OtherJdk::of).flatMap(Optional::stream).filter(j -> j.major() != running)
                    .findFirst();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Optional<OtherJdk> of(final Path home) {
        final Path release = home.resolve("release");
        if (!Files.isExecutable(home.resolve("bin").resolve("java")) || !Files.isRegularFile(release)) {
            return Optional.empty();
        }
        try {
            final Matcher m = VERSION.matcher(Files.readString(release));
            return m.find() ? Optional.of(new OtherJdk(home.toRealPath(), Integer.parseInt(m.group(2))))
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}

package io.gpupool.localstack;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * Where a running local stack can be reached, written to {@code stack.properties} in its data
 * directory, so every tool finds the stack by {@code --data-dir} alone, without copying ports.
 *
 * @param dataDir          the stack's data directory (absolute)
 * @param bootstrapServers the broker's address
 * @param registryUrl      the Schema-Registry-compatible server's base URL, or empty while none runs
 * @param brokerPid        the broker JVM
 * @param ownerPid         the JVM that started the stack and stops it (the broker exits with it)
 * @param secure           whether the broker speaks SASL_SSL (gpupool up --secure): clients need a principal's
 *                         {@code --command-config <data-dir>/secure/<principal>.properties}
 */
public record StackDescriptor(Path dataDir, String bootstrapServers, Optional<String> registryUrl,
                              long brokerPid, long ownerPid, boolean secure) {

    public static final String FILE_NAME = "stack.properties";

    public StackDescriptor {
        Objects.requireNonNull(dataDir, "dataDir");
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        Objects.requireNonNull(registryUrl, "registryUrl");
    }

    /** A plaintext stack's descriptor. */
    public StackDescriptor(final Path dataDir, final String bootstrapServers, final Optional<String> registryUrl,
            final long brokerPid, final long ownerPid) {
        this(dataDir, bootstrapServers, registryUrl, brokerPid, ownerPid, false);
    }

    public static Path file(final Path dataDir) {
        return dataDir.resolve(FILE_NAME);
    }

    /** The descriptor in a data directory, or empty when none was written (or it was removed on shutdown). */
    public static Optional<StackDescriptor> read(final Path dataDir) {
        final Path file = file(dataDir);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        final Properties p = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the stack descriptor " + file, e);
        }
        final String bootstrap = p.getProperty("bootstrap.servers");
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new IllegalStateException("the stack descriptor " + file + " has no bootstrap.servers; delete it and run `gpupool up` again");
        }
        final String registry = p.getProperty("registry.url", "").trim();
        return Optional.of(new StackDescriptor(dataDir.toAbsolutePath().normalize(), bootstrap.trim(),
                registry.isEmpty() ? Optional.empty() : Optional.of(registry),
                parsePid(p, "broker.pid", file), parsePid(p, "owner.pid", file),
                Boolean.parseBoolean(p.getProperty("secure", "false").trim())));
    }

    private static long parsePid(final Properties p, final String key, final Path file) {
        try {
            return Long.parseLong(p.getProperty(key, "-1").trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("the stack descriptor " + file + " has a bad " + key + "; delete it and run `gpupool up` again", e);
        }
    }

    /** Written to a temporary file and moved into place, so a reader never sees half a descriptor. */
    public void write() {
        final Properties p = new Properties();
        p.setProperty("data.dir", dataDir.toString());
        p.setProperty("bootstrap.servers", bootstrapServers);
        p.setProperty("registry.url", registryUrl.orElse(""));
        p.setProperty("broker.pid", Long.toString(brokerPid));
        p.setProperty("owner.pid", Long.toString(ownerPid));
        p.setProperty("secure", Boolean.toString(secure));
        final Path file = file(dataDir);
        final Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
        try {
            Files.createDirectories(dataDir);
            try (Writer writer = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                p.store(writer, "gpupool local stack: read by every gpupool tool given this --data-dir");
            }
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the stack descriptor " + file, e);
        }
    }

    public void delete() {
        try {
            Files.deleteIfExists(file(dataDir));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the stack descriptor " + file(dataDir), e);
        }
    }

    public boolean ownerAlive() {
        return ProcessHandle.of(ownerPid).map(ProcessHandle::isAlive).orElse(false);
    }

    public boolean brokerAlive() {
        return ProcessHandle.of(brokerPid).map(ProcessHandle::isAlive).orElse(false);
    }
}

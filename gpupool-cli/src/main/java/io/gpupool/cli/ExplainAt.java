package io.gpupool.cli;

import io.gpupool.cli.config.ExitCodes;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.cli.config.DataDirOption;
import io.gpupool.cli.history.HistorySource;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.StackHandle;
import io.gpupool.scheduler.journal.EngineSnapshot;
import io.gpupool.scheduler.audit.PointInTime;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code gpupool explain JOB --at TIME}: the job at a past moment, from the recorded history instead
 * of the running scheduler. Its own options (the cluster to read) next to the explain command's
 * --data-dir, which it shares.
 */
public final class ExplainAt {

    @Option(names = "--at", paramLabel = "TIME",
            description = "Explain the job as it was at this ISO-8601 time, from the recorded history (journal, decisions).")
    String at;

    @Option(names = "--bootstrap-server", paramLabel = "HOST:PORT",
            description = "With --at: Kafka bootstrap servers (default: the local stack in --data-dir, started if needed).")
    String bootstrapServer;

    @Option(names = "--command-config", paramLabel = "FILE", description = "With --at: Kafka client properties.")
    Path commandConfig;

    @Option(names = "--registry-url", paramLabel = "URL", description = "With --at: Schema Registry URL.")
    String registryUrl;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "With --at: engine settings the scheduler ran with.")
    Map<String, String> settings = new LinkedHashMap<>();

    @Option(names = "--topic-name", paramLabel = "ID=NAME", description = "With --at: physical name of a renamed topic.")
    Map<String, String> topicNames = new LinkedHashMap<>();

    boolean requested() {
        return at != null;
    }

    int run(final String jobId, final DataDirOption dataDir, final CommandLine cmd) {
        final long atMs;
        try {
            atMs = Instant.parse(at).toEpochMilli();
        } catch (RuntimeException e) {
            throw new CommandLine.ParameterException(cmd, "--at takes an ISO-8601 time such as 2026-01-31T12:00:00Z");
        }
        final Properties clients = new Properties();
        if (commandConfig != null) {
            try (Reader r = Files.newBufferedReader(commandConfig, StandardCharsets.UTF_8)) {
                clients.load(r);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read --command-config " + commandConfig, e);
            }
        }
        StackHandle stack = null;
        if (bootstrapServer != null && !bootstrapServer.isBlank()) {
            clients.put("bootstrap.servers", bootstrapServer.trim());
        } else {
            final Optional<StackDescriptor> running = dataDir.running();
            if (running.isPresent()) {
                clients.put("bootstrap.servers", running.get().bootstrapServers());
            } else {
                stack = dataDir.connectOrStart();
                clients.put("bootstrap.servers", stack.bootstrapServers());
            }
        }
        try (HistorySource.Opened h = HistorySource.open(cmd, clients, stack, registryUrl, dataDir, topicNames)) {
            final List<PlacementDecision> decisions = h.history.decisions(null);
            // the newest snapshot taken before the moment, per pool: no need to replay from the beginning
            final Map<String, EngineSnapshot> start = new HashMap<>();
            h.history.snapshots(null).forEach((pool, list) -> list.stream()
                    .filter(s -> s.timestampMs() <= atMs && s.hasJobBook())
                    .reduce((a, b) -> b).ifPresent(s -> start.put(pool, s)));
            final PointInTime.Explanation e = PointInTime.explain(h.history.journal(null, Map.of()), start, decisions,
                    jobId, atMs, HistorySource.configs(settings, decisions));
            e.print(cmd.getOut());
            return (e.job() == null ? ExitCodes.NOT_FOUND : ExitCodes.OK).code();
        }
    }
}

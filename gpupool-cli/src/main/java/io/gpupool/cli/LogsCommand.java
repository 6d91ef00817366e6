package io.gpupool.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.submit.JobCancellation;
import io.gpupool.cli.submit.LocalSink;
import io.gpupool.scheduler.query.QueryClient;
import io.gpupool.scheduler.query.QueryEndpoint;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code gpupool logs JOB}: the output of a job's command, as the local stack's sink ran it (up --exec-jobs). */
@Command(name = "logs", mixinStandardHelpOptions = true,
        description = {"Prints the output of a job's command, run by the local stack's sink (`gpupool up --exec-jobs`).",
            "One file per node: <data-dir>/sink/logs/<job>_<node>.log; with several nodes each line is prefixed [node].",
            "A job that ran simulated has no output: it says so (exit code 4)."})
public final class LogsCommand implements Callable<Integer> {

    @Parameters(paramLabel = "JOB", description = "Job id, as submit printed it.")
    String jobId;

    @Option(names = "--node", paramLabel = "NODE", description = "Only the part on this node.")
    String node;

    @Option(names = {"-f", "--follow"}, description = "Keep printing what the job writes, until it ends (or Ctrl-C).")
    boolean follow;

    @Mixin
    SchedulerEndpointOption endpoint;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final String problem = JobCancellation.problem(jobId);
        if (problem != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), problem);
        }
        final Path dataDir = endpoint.dataDir.path();
        final Optional<QueryClient> scheduler = scheduler(dataDir);
        final Optional<JsonNode> job = scheduler.flatMap(q -> job(q, jobId));
        final Map<String, Path> files = files(dataDir, job);
        if (files.isEmpty()) {
            return noLog(dataDir, scheduler.isPresent(), job);
        }
        final PrintWriter out = spec.commandLine().getOut();
        final Map<String, Long> read = new LinkedHashMap<>();
        files.keySet().forEach(n -> read.put(n, 0L));
        while (true) {
            for (final Map.Entry<String, Path> f : files.entrySet()) {
                read.put(f.getKey(), print(out, f.getValue(), read.get(f.getKey()), files.size() > 1 ? "[" + f.getKey() + "] " : ""));
            }
            out.flush();
            if (!follow || scheduler.flatMap(q -> job(q, jobId)).map(JobCancellation::hasEnded).orElse(false)) {
                return ExitCodes.OK.code();
            }
            Thread.sleep(500);
        }
    }

    private Optional<QueryClient> scheduler(final Path dataDir) {
        if (endpoint.url != null && !endpoint.url.isBlank()) {
            return Optional.of(new QueryClient(endpoint.url.trim()));
        }
        return QueryEndpoint.find(dataDir).map(QueryClient::new);
    }

    private static Optional<JsonNode> job(final QueryClient q, final String jobId) {
        try {
            return Optional.of(q.job(jobId));
        } catch (QueryClient.QueryException e) {
            return Optional.empty();
        }
    }

    /** The job's log files by node: the nodes the scheduler placed it on, else every file named after the job. */
    private Map<String, Path> files(final Path dataDir, final Optional<JsonNode> job) throws IOException {
        final Set<String> nodes = new LinkedHashSet<>();
        if (node != null) {
            nodes.add(node);
        } else if (job.isPresent()) {
            job.get().path("placement").forEach(a -> nodes.add(a.path("nodeId").asText()));
            job.get().path("history").forEach(d -> d.path("assignments").forEach(a -> nodes.add(a.path("nodeId").asText())));
        }
        final Map<String, Path> files = new LinkedHashMap<>();
        nodes.forEach(n -> {
            final Path f = LocalSink.logFile(dataDir, jobId, n);
            if (Files.isRegularFile(f)) {
                files.put(n, f);
            }
        });
        final Path dir = LocalSink.logDirectory(dataDir);
        if (files.isEmpty() && node == null && Files.isDirectory(dir)) {
            // no scheduler to ask: the files whose name starts with the job's
            final String prefix = LocalSink.logFile(dataDir, jobId, "").getFileName().toString().replaceFirst("\\.log$", "");
            try (Stream<Path> all = Files.list(dir)) {
                final List<Path> mine = new ArrayList<>(all.filter(p -> p.getFileName().toString().startsWith(prefix)
                        && p.getFileName().toString().endsWith(".log")).sorted().toList());
                mine.forEach(p -> files.put(p.getFileName().toString().substring(prefix.length()).replaceFirst("\\.log$", ""), p));
            }
        }
        return files;
    }

    private int noLog(final Path dataDir, final boolean schedulerKnown, final Optional<JsonNode> job) {
        final PrintWriter err = spec.commandLine().getErr();
        final Path dir = LocalSink.logDirectory(dataDir);
        if (schedulerKnown && job.isEmpty()) {
            err.printf("gpupool logs: no job %s: the scheduler does not know it (`gpupool queue` lists waiting jobs)%n", jobId);
        } else if (job.isPresent() && "queued".equals(job.get().path("state").asText())) {
            err.printf("gpupool logs: job %s has not started yet (queued: %s); no output so far%n", jobId,
                    job.get().path("reason").path("code").asText());
        } else if (LocalSink.runsCommands(dataDir).map(r -> !r).orElse(false)) {
            err.printf("gpupool logs: job %s ran simulated: the local sink does not run commands (`gpupool up` without "
                    + "--exec-jobs), so there is no output; `gpupool up --exec-jobs` runs them%n", jobId);
        } else {
            err.printf("gpupool logs: no output of job %s%s in %s: it has no command (it ran simulated), or it ran on a "
                    + "sink on another machine (its logs are there)%n", jobId, node == null ? "" : " on node " + node, dir);
        }
        err.flush();
        return ExitCodes.NOT_FOUND.code();
    }

    /** Prints the file from {@code from} on; returns where it ended. */
    private static long print(final PrintWriter out, final Path file, final long from, final String prefix) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            if (f.length() <= from) {
                return from;
            }
            f.seek(from);
            final byte[] bytes = new byte[(int) Math.min(f.length() - from, 1 << 24)];
            f.readFully(bytes);
            final String text = new String(bytes, StandardCharsets.UTF_8);
            if (prefix.isEmpty()) {
                out.print(text);
            } else {
                text.lines().forEach(l -> out.println(prefix + l));
            }
            return from + bytes.length;
        }
    }
}

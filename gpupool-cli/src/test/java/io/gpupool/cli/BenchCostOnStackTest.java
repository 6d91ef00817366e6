package io.gpupool.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Isolated;

/**
 * {@code gpupool bench cost}, small, on the real local broker: every request is decided and its costs are
 * printed per request, with the counts a request's life cannot do without.
 */
@ExtendWith(LocalStackExtension.class)
@Isolated("a benchmark: its figures and its time are its own only when nothing else runs beside it")
class BenchCostOnStackTest {

    @Test
    void aSmallRunPrintsTheCostOfEachTopicStoreAndComponent(final TestStack stack) {
        final Map<String, String> f = cost(stack, "--nodes", "16", "--leaves", "2", "--jobs", "100",
                "--warmup-jobs", "10", "--in-flight", "50");
        assertThat(f).containsEntry("requests_decided", "100").containsEntry("mode", "lifecycle");
        // a request's life: one submit, one COMPLETED report; PLACED and RELEASED at least, journaled both ways
        assertThat(number(f, "topic.jobs.records_per_request")).isEqualTo(1.0);
        assertThat(number(f, "topic.job-events.records_per_request")).isEqualTo(1.0);
        assertThat(number(f, "decisions_per_request")).isGreaterThanOrEqualTo(2.0);
        assertThat(number(f, "topic.decisions.records_per_request")).isEqualTo(number(f, "decisions_per_request"));
        assertThat(number(f, "topic.journal.records_per_request")).isGreaterThanOrEqualTo(2.0);
        // the bench keys its records by job id with Java's partitioner, so none crosses the repartition by job id (a
        // topic that took no offsets is not listed)
        assertThat(f.getOrDefault("topic.jobs-by-id-repartition.records_per_request", "0")).isIn("0", "0.000");
        assertThat(number(f, "topic.node-commands.records_per_request")).isGreaterThanOrEqualTo(2.0);
        for (final String changelog : new String[] {"sequencer-jobs", "placer-jobs"}) {
            assertThat(number(f, "topic." + changelog + "-changelog.records_per_request")).as(changelog).isPositive();
            assertThat(number(f, "topic." + changelog + "-changelog.disk_bytes_per_request")).as(changelog).isPositive();
        }
        // histories are stored with a pool's snapshot, at most once per job decided since the last one (a short run
        // may take no snapshot, and a topic that took no offsets is not listed)
        if (f.containsKey("topic.placer-history-changelog.records_per_request")) {
            assertThat(number(f, "topic.placer-history-changelog.records_per_request")).isLessThanOrEqualTo(1.0);
        }
        // every transaction leaves markers; the scheduler's writes are the sum of its topics
        assertThat(number(f, "scheduler_writes.markers_per_request")).isPositive();
        assertThat(number(f, "scheduler_writes.records_per_request")).isGreaterThan(
                number(f, "topic.journal.records_per_request") + number(f, "topic.decisions.records_per_request"));
        // no journal entry is written a second time (a restore re-reads the journal after the snapshot): the tail store
        // of before takes nothing
        assertThat(number(f, "store.placer-tail.calls_per_request")).isZero();
        assertThat(f.getOrDefault("topic.placer-tail-changelog.records_per_request", "0")).isIn("0", "0.000");
        // job book 5 (2 reads, 3 writes), route 2, histories under 1 (at a snapshot, once per job decided since)
        assertThat(number(f, "store_calls_per_request")).isBetween(6.0, 8.5);
        assertThat(number(f, "scheduler_cpu_us_per_request")).isPositive();
        assertThat(Long.parseLong(f.get("jfr_samples"))).isPositive();
        final double shares = f.entrySet().stream().filter(e -> e.getKey().startsWith("cpu_share."))
                .mapToDouble(e -> Double.parseDouble(e.getValue())).sum();
        assertThat(shares).isBetween(0.99, 1.01);
        assertThat(f).containsKey("top_frame.1");
    }

    @Test
    void withABacklogEachRequestIsAWaitingJobStartedByARelease(final TestStack stack) {
        final Map<String, String> f = cost(stack, "--nodes", "4", "--leaves", "1", "--jobs", "60",
                "--warmup-jobs", "10", "--in-flight", "8", "--backlog", "100", "--no-profile", "--no-store-calls",
                "--restart");
        assertThat(f).containsEntry("mode", "backlog").containsEntry("queue_depth_at_start", "100");
        // far under --snapshot-every and 1,000 entries: no snapshot, so the restart re-applied the pool's whole
        // journal, at least the 32 holders' and the 100 waiting jobs' submits and the 60 measured completions
        assertThat(Long.parseLong(f.get("restart_restored_entries"))).isGreaterThanOrEqualTo(32 + 100 + 60);
        assertThat(Long.parseLong(f.get("restart_pool_ms"))).isPositive();
        // the measured 60, and the jobs placed by then and not yet released (each of the 8 chains has about one)
        assertThat(Long.parseLong(f.get("requests_decided"))).isBetween(60L, 60L + 2 * 8);
        // the waiting jobs were submitted before the measurement: a request in it is a COMPLETED report, and the
        // waiting job's PLACED and RELEASED
        assertThat(f).doesNotContainKey("topic.jobs.records_per_request"); // a topic that took no offsets
        assertThat(number(f, "topic.job-events.records_per_request")).isBetween(1.0, 1.2);
        assertThat(number(f, "decisions_per_request")).isGreaterThanOrEqualTo(2.0);
    }

    @Test
    void withAShortRetentionEachRequestAlsoPaysForAnExpiry(final TestStack stack) {
        final Map<String, String> f = cost(stack, "--nodes", "4", "--leaves", "1", "--jobs", "60",
                "--warmup-jobs", "10", "--in-flight", "8", "--retention-ms", "1", "--no-profile");
        assertThat(f).containsEntry("finished_job_retention_ms", "1").containsEntry("requests_decided", "60");
        // a job's record expires 1 ms of journal time after it finished, at the pool's next entry: its value is
        // rewritten as expired with a purge key beside it (2 puts more than its 3) and its index entry deleted, and its
        // route ends (a delete in stage 1); the run's last few jobs have no entry after them
        assertThat(number(f, "store.placer-jobs.put_per_request")).isGreaterThan(4.0);
        assertThat(number(f, "store.placer-jobs.delete_per_request")).isGreaterThan(0.8);
        assertThat(number(f, "store.sequencer-jobs.delete_per_request")).isGreaterThan(0.5);
        assertThat(number(f, "store_calls_per_request")).isGreaterThan(10.0);
    }

    @Test
    void aNegativeRetentionOtherThanTheDefaultIsRefusedWithTheFix(final TestStack stack) {
        final CliRun r = CliRun.of("bench", "cost", "--bootstrap-server", stack.bootstrapServers(),
                "--registry-url", stack.requireRegistryUrl(), "--retention-ms", "-5");
        assertThat(r.exitCode()).isEqualTo(64);
        assertThat(r.err()).contains("-1 (the engine's default), 0 (kept forever) or more ms").contains("-5");
    }

    /** Runs {@code gpupool bench cost} on the stack with these flags, which must succeed; its name=value lines. */
    private static Map<String, String> cost(final TestStack stack, final String... flags) {
        final List<String> args = new ArrayList<>(List.of("bench", "cost",
                "--bootstrap-server", stack.bootstrapServers(), "--registry-url", stack.requireRegistryUrl()));
        args.addAll(List.of(flags));
        final CliRun r = CliRun.of(args.toArray(String[]::new));
        assertThat(r.exitCode()).as(r.err()).isZero();
        final Map<String, String> figures = r.out().lines().filter(l -> l.contains("="))
                .collect(Collectors.toMap(l -> l.substring(0, l.indexOf('=')), l -> l.substring(l.indexOf('=') + 1)));
        assertThat(figures).as(r.out()).containsKey("requests_decided");
        return figures;
    }

    private static double number(final Map<String, String> figures, final String name) {
        assertThat(figures).as(name).containsKey(name);
        return Double.parseDouble(figures.get(name));
    }
}

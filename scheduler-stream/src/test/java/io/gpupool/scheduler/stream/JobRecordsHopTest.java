package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.PlacementDecision;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * A job record already on the partition of its job id (as Java's default partitioner puts it) goes straight
 * to routing; any other crosses the repartition by job id. The test driver writes every record to partition
 * 0, so with a repartition of 4 partitions the jobs whose id hashes to 0 skip the hop and the others cross
 * it: both kinds run and end alike, keep the position they were written at, and the placer's route notice
 * reaches a job that never crossed.
 */
class JobRecordsHopTest {
    private static final int BY_ID_PARTITIONS = 4;

    /** {@code count} job ids whose records are on their partition (hash to 0) or not, as asked. */
    private static List<String> jobIds(final boolean onPartitionZero, final int count) {
        final List<String> ids = new ArrayList<>();
        for (int n = 0; ids.size() < count; n++) {
            final String id = "job-" + n;
            if ((ByJobId.partition(id.getBytes(StandardCharsets.UTF_8), BY_ID_PARTITIONS) == 0) == onPartitionZero) {
                ids.add(id);
            }
        }
        return ids;
    }

    @Test
    void jobsOnTheirPartitionSkipTheHopTheOthersCrossItAndAllRunAndEnd() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, Map.of(), JobSources.sharedOnly(BY_ID_PARTITIONS))) {
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            final List<String> ids = new ArrayList<>(jobIds(true, 3));
            ids.addAll(jobIds(false, 3));
            long at = 2_000;
            for (final String id : ids) {
                h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), at++);
            }
            for (final String id : ids) {
                h.events.pipeInput(id, h.event(id, JobEventType.COMPLETED, at), at++);
            }

            assertThat(h.decisions()).extracting(PlacementDecision::getJobId, PlacementDecision::getOutcome)
                    .containsExactlyInAnyOrderElementsOf(ids.stream().flatMap(id -> Stream.of(tuple(id, DecisionOutcome.PLACED),
                            tuple(id, DecisionOutcome.RELEASED))).toList());
            for (final String id : ids) {
                assertThat(h.engines.all().get(0).<Boolean>read(e -> e.isLive(id))).as("%s after its completion", id).isFalse();
            }
            assertThat(h.engines.all().get(0).<Integer>read(e -> e.node("n0").orElseThrow().freeGpus())).isEqualTo(8);
            assertThat(h.counter("gpupool.job.records.keyed", "path", "direct")).isEqualTo(6.0);
            assertThat(h.counter("gpupool.job.records.keyed", "path", "repartition")).isEqualTo(6.0);
            // the journal names the record each job's submit was written as, whichever way it came
            final List<String> sources = h.journal().stream().map(TestRecord::value)
                    .filter(e -> e.getSource() != null && e.getSource().getTopic().equals(h.topics.jobs()))
                    .map(e -> e.getSource().getTopic() + " " + e.getSource().getPartition() + "@" + e.getSource().getOffset())
                    .toList();
            assertThat(sources).containsExactlyInAnyOrder("gpupool.jobs 0@0", "gpupool.jobs 0@1", "gpupool.jobs 0@2",
                    "gpupool.jobs 0@3", "gpupool.jobs 0@4", "gpupool.jobs 0@5");
            assertThat(h.dlq.isEmpty()).isTrue();
        }
    }

    @Test
    void theRouteNoticeOfADuplicateReachesAJobThatNeverCrossedTheHop() throws Exception {
        try (Harness h = new Harness(1_000, 600_000, Map.of(), JobSources.sharedOnly(BY_ID_PARTITIONS))) {
            final String id = jobIds(true, 1).get(0);
            h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-a", 8), 1_000);
            h.jobs.pipeInput(id, Fixtures.submit(id, Fixtures.request("p1", 1, 1).build()), 2_000);
            h.jobs.pipeInput(id, Fixtures.submit(id, "again", Fixtures.request("p1", 1, 2).build()), 3_000);

            assertThat(h.counter("gpupool.job.route.ends", "why", "rejected")).isEqualTo(1.0);
            assertThat(JobRoute.read(h.driver.<String, String>getKeyValueStore(JobRoutingProcessor.JOB_STORE).get(id)).open())
                    .extracting(JobRoute.Entry::commandId).containsExactly("submit-" + id);
            h.jobs.pipeInput(id, Fixtures.cancel(id), 4_000);
            assertThat(h.decisions()).extracting(PlacementDecision::getOutcome, PlacementDecision::getReasonCode)
                    .containsExactly(tuple(DecisionOutcome.PLACED, "PLACED"), tuple(DecisionOutcome.REJECTED, "DUPLICATE_JOB"),
                            tuple(DecisionOutcome.CANCELLED, "CANCELLED_BY_USER"));
            assertThat(h.counter("gpupool.job.records.keyed", "path", "repartition")).isZero();
            assertThat(h.dlq.isEmpty()).isTrue();
        }
    }
}

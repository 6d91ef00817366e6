package io.gpupool.scheduler.audit;

import io.gpupool.scheduler.core.EngineConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What-if on a recorded history: the recorded settings reproduce it exactly; other settings give other figures. */
class WhatIfTest {
    private static final EngineConfig BEST_FIT = EngineConfig.fromSettings(Map.of("pool", "p", "policy", "best-fit"));
    private static SyntheticHistory.Recording rec;

    @BeforeAll
    static void record() {
        // a small, busy pool (16 nodes): jobs wait, so the policy matters
        rec = SyntheticHistory.record("p", 16, 15_000, 11, BEST_FIT);
    }

    @Test
    void theRecordedPolicyWithRetimedCompletionsReproducesHistoryExactly() {
        final RunStats recorded = WhatIf.recorded(rec.journal(), rec.decisions(), p -> BEST_FIT);
        final RunStats same = WhatIf.rerun("same", rec.journal(), rec.decisions(), p -> BEST_FIT);
        assertThat(recorded.jobs()).hasSizeGreaterThan(50);
        assertThat(recorded.jobs().stream().filter(j -> j.jctMs() >= 0)).hasSizeGreaterThan(20);
        for (int i = 0; i < recorded.jobs().size(); i++) {
            assertThat(same.jobs().get(i)).as("job " + i).isEqualTo(recorded.jobs().get(i));
        }
        assertThat(same.jobs()).hasSameSizeAs(recorded.jobs());
        assertThat(same.figures()).isEqualTo(recorded.figures());
        assertThat(same.samples()).isEqualTo(recorded.samples());
    }

    @Test
    void anotherPolicyGivesTheSideBySideComparison() {
        final EngineConfig firstFit = EngineConfig.fromSettings(Map.of("pool", "p", "policy", "first-fit"));
        final RunStats recorded = WhatIf.recorded(rec.journal(), rec.decisions(), p -> BEST_FIT);
        final RunStats other = WhatIf.rerun("first-fit", rec.journal(), rec.decisions(), p -> firstFit);
        // the same jobs were submitted, but they were placed differently
        assertThat(other.jobs()).extracting(JobTimes::jobId).containsExactlyElementsOf(
                recorded.jobs().stream().map(JobTimes::jobId).toList());
        assertThat(other.jobs()).extracting(JobTimes::placement)
                .isNotEqualTo(recorded.jobs().stream().map(JobTimes::placement).toList());
        assertThat(other.figures().keySet()).containsExactly("jobs", "jobs_started", "jobs_completed",
                "queue_delay_mean_s", "queue_delay_p95_s", "jct_mean_s", "jct_p95_s", "allocation_pct",
                "fragmentation_mean", "preemptions");
        assertThat(other.figures().get("allocation_pct")).isBetween(1.0, 100.0);
        // every job that ran once and completed in the re-run ran exactly as long as it really ran (re-timed)
        final ObservedRuns observed = new ObservedRuns(rec.journal(), rec.decisions());
        final List<JobTimes> simple = other.jobs().stream().filter(j -> j.jctMs() >= 0)
                .filter(j -> j.reasons().matches("([A-Z_]+\\|)?PLACED\\|COMPLETED")).toList();
        assertThat(simple).hasSizeGreaterThan(10);
        for (final JobTimes j : simple) {
            final ObservedRuns.Run run = observed.of(j.jobId(), 0);
            assertThat(j.endMs() - j.startMs()).as(j.jobId()).isEqualTo(run.startLagMs() + run.runtimeMs());
        }
    }

    @Test
    void exportHasOneRowPerJobWithTheDocumentedColumns() {
        final List<JobTimes> jobs = JobCsv.jobs(rec.journal(), rec.decisions());
        final StringWriter out = new StringWriter();
        JobCsv.write(jobs, new PrintWriter(out));
        final String[] lines = out.toString().split("\n");
        assertThat(lines[0]).isEqualTo("job_id,pool,tenant,nodes,gpus_per_node,submit,start,end,queue_delay_ms,jct_ms,"
                + "final_outcome,placement,reasons,preemptions");
        assertThat(lines).hasSize(jobs.size() + 1);
        final JobTimes done = jobs.stream().filter(j -> j.jctMs() >= 0 && j.nodes() == 2).findFirst().orElseThrow();
        final String row = Arrays.stream(lines).filter(l -> l.startsWith(done.jobId() + ",")).findFirst()
                .orElseThrow();
        assertThat(row).contains(",COMPLETED,", Instant.ofEpochMilli(done.submitMs()).toString(),
                "," + done.jctMs() + ",");
        // a gang's placement names two nodes, separated by a space, in one field
        assertThat(done.placement()).matches("n\\d+\\[[0-9,]+\\] n\\d+\\[[0-9,]+\\]");
        assertThat(JobCsv.q("a,b")).isEqualTo("\"a,b\"");
        assertThat(JobCsv.q("say \"x\"")).isEqualTo("\"say \"\"x\"\"\"");
    }

    @Test
    void explainAtAPastMomentShowsTheReasonTheJobsAheadAndTheCapacity() {
        // a job that waited: explain it halfway between its submit and its start
        final List<JobTimes> jobs = JobCsv.jobs(rec.journal(), rec.decisions());
        final JobTimes waited = jobs.stream().filter(j -> j.queueDelayMs() > 2_000).findFirst().orElseThrow();
        final long at = waited.submitMs() + waited.queueDelayMs() / 2;
        final PointInTime.Explanation e = PointInTime.explain(rec.journal().iterator(), Map.of(), rec.decisions(),
                waited.jobId(), at, p -> BEST_FIT);
        assertThat(e.job().state().name()).isEqualTo("QUEUED");
        assertThat(e.job().currentReason()).isNotNull();
        assertThat(e.capacity()).containsKey(SyntheticHistory.MODEL);
        assertThat(e.lastEntry().timestampMs()).isLessThanOrEqualTo(at);
        final StringWriter out = new StringWriter();
        e.print(new PrintWriter(out));
        assertThat(out.toString()).contains("state: queued", "reason: ", "jobs ahead of it: " + e.ahead().size(),
                "capacity it saw:", "allocatable", "would have run then if");
        assertThat(e.advice()).as("a waiting job gets the way out").isNotNull();
        // after its start, it was placed
        final PointInTime.Explanation later = PointInTime.explain(rec.journal().iterator(), Map.of(), rec.decisions(),
                waited.jobId(), waited.startMs(), p -> BEST_FIT);
        assertThat(later.job().state().holdsResources()).isTrue();
        assertThat(later.ahead()).isEmpty();
        assertThat(later.advice()).as("a placed job needs none").isNull();
    }
}

package io.gpupool.scheduler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobEventType;
import io.gpupool.avro.Tick;
import io.gpupool.scheduler.core.EngineConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A job still running when the history ends stays running in the what-if, also when an earlier run of it
 * ended (preempted): each run of a job is re-timed from the same run in the record, and a run the record
 * never saw end does not end. Before, the last run took the earlier run's end: the what-if ended it (evicted)
 * at that run's length after its start, and kept doing so to each placement after.
 */
class WhatIfRunningJobsTest {
    private static final EngineConfig CONFIG = EngineConfig.fromSettings(Map.of("pool", "p", "policy", "best-fit"));

    @Test
    void aJobRunningAtTheEndAfterAPreemptionKeepsItsGpusInTheWhatIf() {
        final RecordedRun rec = new RecordedRun(CONFIG);
        rec.add(1_000, "n0", new InventoryChange("n0", false, SyntheticHistory.node("p", "n0", "leaf-0", 8)));
        final String low1 = RecordedRun.placed(rec.submit(1_010, "low", 0, true), "low");
        assertThat(low1).isNotEmpty();
        rec.event(1_100, "low", JobEventType.STARTED);
        // another job waits for the node; the node ends low's first run (evicted by the node), high takes it
        rec.submit(2_000, "high", 10, false);
        assertThat(RecordedRun.placed(rec.event(2_050, "low", JobEventType.EVICTED), "high")).isNotEmpty();
        rec.event(2_100, "high", JobEventType.STARTED);
        // high ends, low runs again and is still running when the history ends
        final String low2 = RecordedRun.placed(rec.event(5_000, "high", JobEventType.COMPLETED), "low");
        assertThat(low2).as("low placed again when high ended").isNotEmpty();
        rec.event(5_100, "low", JobEventType.STARTED);
        rec.add(20_000, null, Tick.newBuilder().setReason("clock").build());
        assertThat(rec.engine.placementOf("low")).isEqualTo(low2);

        final RunStats recorded = WhatIf.recorded(rec.journal, rec.decisions, p -> CONFIG);
        final RunStats same = WhatIf.rerun("same", rec.journal, rec.decisions, p -> CONFIG);
        final List<RunStats.Sample> samples = same.samples();
        assertThat(samples.get(samples.size() - 1).allocatedGpus()).as("low holds its 8 GPUs at the end").isEqualTo(8);
        assertThat(same.jobs()).isEqualTo(recorded.jobs());
        assertThat(same.figures()).isEqualTo(recorded.figures());
        assertThat(same.samples()).isEqualTo(recorded.samples());
    }
}

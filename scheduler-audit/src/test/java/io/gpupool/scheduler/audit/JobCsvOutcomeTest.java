package io.gpupool.scheduler.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.avro.InventoryChange;
import io.gpupool.avro.JobCancel;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobEventType;
import io.gpupool.scheduler.core.EngineConfig;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Export names how each job ended: COMPLETED or FAILED (the release's reason), not the RELEASED that ended it. */
class JobCsvOutcomeTest {

    @Test
    void aFinishedJobsOutcomeIsCompletedOrFailedWithItsJct() {
        final RecordedRun rec = new RecordedRun(EngineConfig.fromSettings(Map.of("pool", "p")));
        rec.add(1_000, "n0", new InventoryChange("n0", false, SyntheticHistory.node("p", "n0", "leaf-0", 8)));
        rec.submit(1_010, "ok", 0, false);
        rec.submit(1_020, "bad", 0, false);
        rec.submit(1_030, "never", 0, false);
        rec.event(1_100, "ok", JobEventType.STARTED);
        rec.event(4_000, "ok", JobEventType.COMPLETED); // bad starts
        rec.event(4_100, "bad", JobEventType.STARTED);
        rec.add(4_500, "never", JobCommand.newBuilder().setJobId("never").setCommandId("cancel-never")
                .setCommand(JobCancel.newBuilder().setReason("no longer needed").build()).build()); // while it waits
        rec.event(5_000, "bad", JobEventType.FAILED);

        final Map<String, JobTimes> jobs = JobCsv.jobs(rec.journal, rec.decisions).stream()
                .collect(Collectors.toMap(JobTimes::jobId, Function.identity()));
        assertThat(jobs.get("ok").finalOutcome()).isEqualTo("COMPLETED");
        assertThat(jobs.get("ok").jctMs()).isEqualTo(4_000 - 1_010);
        assertThat(jobs.get("bad").finalOutcome()).isEqualTo("FAILED");
        assertThat(jobs.get("bad").jctMs()).isEqualTo(5_000 - 1_020);
        assertThat(jobs.get("never").finalOutcome()).isEqualTo("CANCELLED");
        assertThat(jobs.get("never").jctMs()).as("no JCT for a job that never ran").isEqualTo(-1);
        assertThat(List.of(jobs.get("ok").reasons(), jobs.get("bad").reasons()))
                .allSatisfy(r -> assertThat(r).doesNotContain("RELEASED"));
    }
}

package io.gpupool.scheduler.stream;

import io.gpupool.avro.JobEventType;
import io.gpupool.avro.JournalEntry;
import io.gpupool.avro.NodeCommand;
import io.gpupool.avro.PlacementDecision;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.test.TestRecord;

/**
 * A run in which the engine throws half-way through placing a gang: pool p1 has two 8-GPU nodes, "small" holds
 * 2 GPUs of one, and the failpoint makes placing "gang" (2 nodes x 4 GPUs) throw after its first part took its
 * GPUs. Then "big" (2 nodes x 6 GPUs) fits only if the gang's first part was given back, and more entries
 * follow so that snapshots are taken after the failure. Shared by the placer's and the audit's tests.
 */
public final class HalfAppliedGang {
    /** The engine settings of the run: the failpoint. */
    public static final Map<String, String> SETTINGS = Map.of("failpoint.allocate", "gang:1");

    /** What the run recorded. */
    public record Run(List<JournalEntry> journal, List<PlacementDecision> decisions, List<NodeCommand> commands) {
    }

    private HalfAppliedGang() {
    }

    /** Drives the run through {@code h}, a harness with {@link #SETTINGS}. */
    public static Run run(final Harness h) {
        h.inventory.pipeInput("n0", Fixtures.node("p1", "n0", "leaf-0", 8), 1_000);
        h.inventory.pipeInput("n1", Fixtures.node("p1", "n1", "leaf-0", 8), 1_000);
        h.jobs.pipeInput("small", Fixtures.submit("small", Fixtures.request("p1", 1, 2).build()), 2_000);
        h.events.pipeInput("small", h.event("small", JobEventType.STARTED, 2_100), 2_100);
        h.jobs.pipeInput("gang", Fixtures.submit("gang", Fixtures.request("p1", 2, 4).build()), 3_000);
        h.jobs.pipeInput("big", Fixtures.submit("big", Fixtures.request("p1", 2, 6).build()), 4_000);
        h.events.pipeInput("big", h.event("big", JobEventType.STARTED, 4_100), 4_100);
        h.events.pipeInput("small", h.event("small", JobEventType.COMPLETED, 5_000), 5_000);
        h.jobs.pipeInput("after", Fixtures.submit("after", Fixtures.request("p1", 1, 2).build()), 6_000);
        h.events.pipeInput("big", h.event("big", JobEventType.COMPLETED, 7_000), 7_000);
        return new Run(h.journal().stream().map(TestRecord::value).toList(), h.decisions(),
                h.commands.readValuesToList());
    }
}

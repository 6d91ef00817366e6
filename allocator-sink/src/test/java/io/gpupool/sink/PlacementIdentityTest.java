package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.avro.NodeCommandType;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.PartKey;
import io.gpupool.sink.ledger.AppliedLedger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static io.gpupool.sink.ProcessorRig.allocate;
import static io.gpupool.sink.ProcessorRig.stop;
import static org.assertj.core.api.Assertions.assertThat;

/** Every event names the placement it is about, and a stop ends only the placement it names. */
class PlacementIdentityTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @Test
    void everyEventOfAPartCarriesItsPlacement() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            // The placement id wins over the decision id when both are set (today they are equal).
            rig.handle(allocate("a1", "done", "n1", "dec-1", "place-1", 0));
            rig.handle(allocate("a2", "evicted", "n1", "dec-2", "place-2", 1));
            // A scheduler that predates placement ids: the ALLOCATE's decision is the placement.
            rig.handle(allocate("a3", "legacy", "n1", "dec-3", null, 2));
            applier.complete(rig.tracker.current(new PartKey("done", "n1")).orElseThrow());
            rig.handle(stop(NodeCommandType.EVICT, "e2", "evicted", "n1", "place-2"));
            // A stop that names no placement stops the part it finds, and its APPLIED names that part's.
            rig.handle(stop(NodeCommandType.EVICT, "e3", "legacy", "n1", null));
            rig.await("e2/EVICTED", WAIT);
            rig.await("e3/EVICTED", WAIT);

            assertThat(placements(rig, "a1/APPLIED", "a1/STARTED", "a1/COMPLETED")).containsOnly("place-1");
            assertThat(placements(rig, "a2/APPLIED", "a2/STARTED", "e2/APPLIED", "e2/EVICTED")).containsOnly("place-2");
            assertThat(placements(rig, "a3/APPLIED", "a3/STARTED", "e3/APPLIED", "e3/EVICTED")).containsOnly("dec-3");
            assertThat(rig.event("e2/EVICTED").orElseThrow().getDecisionId()).as("the eviction's decision").isEqualTo("d-e2");
            assertThat(rig.events).hasSize(11).allSatisfy(e -> assertThat(e.getPlacementId()).isNotNull());
        }
    }

    @Test
    void aStopNamingAnotherPlacementLeavesTheRunningPartAlone() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(allocate("a-new", "job", "n1", "place-new", "place-new", 0));
            // The EVICT of the job's earlier placement, late: it must not end the placement running now.
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "job", "n1", "place-old"));
            rig.handle(stop(NodeCommandType.RELEASE, "r-old", "job", "n1", "place-old"));

            assertThat(applier.runs("a-new")).isTrue();
            assertThat(applier.log).containsExactly("start job@n1");
            assertThat(rig.tracker.current(new PartKey("job", "n1"))).map(JobPart::placementId).hasValue("place-new");
            assertThat(rig.event("e-old/APPLIED").orElseThrow().getPlacementId()).isEqualTo("place-old");
            assertThat(rig.events).extracting(JobEvent::getEventId)
                    .containsExactly("a-new/APPLIED", "a-new/STARTED", "e-old/APPLIED", "r-old/APPLIED");
            assertThat(rig.metrics.count("gpupool.sink.commands.stale.stops", "EVICT")).isEqualTo(1);
            assertThat(rig.metrics.count("gpupool.sink.commands.stale.stops", "RELEASE")).isEqualTo(1);
            assertThat(rig.ledger.unsettled()).singleElement().satisfies(a -> assertThat(a.pendingStop()).isEmpty());

            // The stop of the placement that runs does end it.
            rig.handle(stop(NodeCommandType.EVICT, "e-new", "job", "n1", "place-new"));
            assertThat(rig.await("e-new/EVICTED", WAIT).getPlacementId()).isEqualTo("place-new");
            assertThat(applier.runs("a-new")).isFalse();
        }
        // A restarted sink reads the stale stops from the ledger as the running sink applied them: no stop.
        try (AppliedLedger ledger = AppliedLedger.open(dir)) {
            assertThat(ledger.unsettled()).isEmpty();
        }
    }

    @Test
    void aRestartedSinkDoesNotTurnAStaleStopIntoAPendingOne() throws Exception {
        final ScriptedApplier applier = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, applier)) {
            rig.handle(allocate("a-new", "job", "n1", "place-new", "place-new", 0));
            rig.handle(stop(NodeCommandType.EVICT, "e-old", "job", "n1", "place-old"));
        }
        final ScriptedApplier restarted = new ScriptedApplier(0, Duration.ofSeconds(1));
        try (ProcessorRig rig = ProcessorRig.of(dir, restarted)) {
            assertThat(rig.ledger.unsettled()).singleElement().satisfies(a -> {
                assertThat(a.part().placementId()).isEqualTo("place-new");
                assertThat(a.pendingStop()).isEmpty();
            });
            rig.processor.recover();
            assertThat(restarted.runs("a-new")).as("resumed, not stopped").isTrue();
            assertThat(restarted.log).isEmpty();
        }
    }

    private static List<String> placements(final ProcessorRig rig, final String... eventIds) {
        return Arrays.stream(eventIds).map(id -> rig.event(id)
                .orElseThrow(() -> new AssertionError("no event " + id + " in " + rig.events)).getPlacementId()).toList();
    }
}

package io.gpupool.sink.apply;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The simulated applier runs a part for its runtime divided by the time scale. */
class SimulatedApplierTest {

    private final SimulatedApplier applier = new SimulatedApplier(20, Duration.ofSeconds(60));
    private final RecordingObserver observer = new RecordingObserver();

    @AfterEach
    void close() {
        applier.close();
    }

    @Test
    void aJobRunsForItsScaledRuntime() throws Exception {
        final JobPart part = Parts.part("j1", "n", List.of(0), List.of(), Map.of(), 10_000L);
        assertThat(applier.scaledMillis(part)).isEqualTo(500);
        applier.allocate(part, observer);
        assertThat(observer.pids).containsKey(part.commandId());
        assertThat(observer.ended(part)).as("still running its 500 ms").isFalse();
        assertThat(applier.runningCount()).isEqualTo(1);
        final Outcome outcome = observer.awaitEnd(part, Duration.ofSeconds(10));
        assertThat(outcome.success()).isTrue();
        assertThat(applier.runningCount()).isZero();
    }

    @Test
    void aJobWithoutEstimateUsesTheDefaultRuntime() {
        final JobPart part = Parts.part("j2", "n", List.of(0), List.of(), Map.of(), null);
        assertThat(applier.scaledMillis(part)).isEqualTo(3_000);
    }

    @Test
    void aStoppedJobNeverEnds() throws Exception {
        final JobPart part = Parts.part("j3", "n", List.of(0), List.of(), Map.of(), 4_000L);
        applier.allocate(part, observer);
        assertThat(applier.stop(part, "evicted")).isPresent();
        assertThat(applier.runningCount()).isZero();
        // Twice its 200 ms scaled runtime: a timer left behind would have ended it by then.
        await("a stopped part never ends").during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(5))
                .until(() -> !observer.ended(part));
        assertThat(applier.stop(part, "again")).isEmpty();
    }

    @Test
    void recoverRunsOnlyWhatIsLeft() throws Exception {
        // A 10-minute part (30 s scaled): recovered after its whole runtime it ends at once, and the wait
        // for it (10 s) is far shorter than the 30 s it would have run again; recovered just now it runs on.
        final JobPart over = Parts.part("j4", "n", List.of(0), List.of(), Map.of(), 600_000L);
        final JobPart fresh = Parts.part("j5", "n", List.of(0), List.of(), Map.of(), 600_000L);
        final long now = System.currentTimeMillis();
        applier.recover(over, -1, now - 31_000, observer);
        applier.recover(fresh, -1, now, observer);
        assertThat(observer.awaitEnd(over, Duration.ofSeconds(10)).success()).isTrue();
        assertThat(observer.ended(fresh)).isFalse();
        assertThat(applier.runningCount()).isEqualTo(1);
    }
}

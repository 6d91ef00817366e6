package io.gpupool.sink.apply;

import static org.assertj.core.api.Assertions.assertThat;

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
        final long t0 = System.nanoTime();
        applier.allocate(part, observer);
        assertThat(observer.pids).containsKey(part.commandId());
        final Outcome outcome = observer.awaitEnd(part, Duration.ofSeconds(10));
        final long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(outcome.success()).isTrue();
        assertThat(tookMs).isBetween(450L, 3_000L);
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
        Thread.sleep(400);
        assertThat(observer.ended(part)).isFalse();
        assertThat(applier.stop(part, "again")).isEmpty();
    }

    @Test
    void recoverRunsOnlyWhatIsLeft() throws Exception {
        final JobPart part = Parts.part("j4", "n", List.of(0), List.of(), Map.of(), 20_000L); // 1 s scaled
        final long t0 = System.nanoTime();
        applier.recover(part, -1, System.currentTimeMillis() - 800, observer);
        observer.awaitEnd(part, Duration.ofSeconds(10));
        assertThat((System.nanoTime() - t0) / 1_000_000).isLessThan(700);
    }
}

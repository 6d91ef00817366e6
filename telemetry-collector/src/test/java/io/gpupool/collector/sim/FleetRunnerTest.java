package io.gpupool.collector.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.LinkSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.publish.RecordSink;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class FleetRunnerTest {

    /** A sink whose first GpuSamples stalls: the ticks it overran are skipped, not replayed in a burst. */
    @Test
    void anOverrunTickSkipsTheTicksItMissed() throws Exception {
        final AtomicInteger gpuRecords = new AtomicInteger();
        final RecordSink stalling = new RecordSink() {
            @Override
            public void publishInventory(final NodeInventory record) {
            }

            @Override
            public void publishGpu(final GpuSamples record) {
                if (gpuRecords.incrementAndGet() == 1) {
                    sleep(350); // the behaviour under test: one tick that stalls for three and a half intervals
                }
            }

            @Override
            public void publishLink(final LinkSamples record) {
            }
        };
        final SimulatedFleet fleet = new SimulatedFleet(new FleetSpec("p", 1, 1, 1, 1, 1, 0, 1), new BusyGpus(), new FleetFaults());
        final FleetRunner runner = new FleetRunner(fleet, stalling, Duration.ofMillis(100), Clock.systemUTC());
        runner.start();
        await("the stalled tick and two after it").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
                .until(() -> runner.lateTicks() == 1 && runner.ticks() >= 3);
        runner.close();
        assertThat(runner.lateTicks()).isEqualTo(1);
        // the intervals the stalled tick overran are skipped, not run afterwards in a burst
        assertThat(runner.skippedTicks()).isBetween(3L, 4L);
        assertThat(runner.ticks()).isGreaterThanOrEqualTo(3L);
        assertThat(runner.maxTick()).isGreaterThanOrEqualTo(Duration.ofMillis(350));
    }

    private static void sleep(final long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

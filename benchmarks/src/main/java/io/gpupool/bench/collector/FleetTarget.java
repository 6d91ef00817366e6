package io.gpupool.bench.collector;

import io.gpupool.collector.app.FleetCollector;
import io.gpupool.collector.publish.PublisherStats;
import io.gpupool.collector.publish.PublisherTopics;
import io.gpupool.collector.sim.FleetSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The process the fleet benchmark measures: one simulated-fleet publisher at 1 Hz for a fixed
 * time. Arguments: BOOTSTRAP REGISTRY_URL NODES SECONDS. Prints name=value figures at the end.
 */
public final class FleetTarget {
    private FleetTarget() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: FleetTarget BOOTSTRAP REGISTRY_URL NODES SECONDS");
            System.exit(2);
        }
        final int nodes = Integer.parseInt(args[2]);
        final FleetSpec spec = new FleetSpec("default", nodes, 8, 8, 32, 8, Math.max(1, nodes / 1024), 42);
        final long seconds = Long.parseLong(args[3]);
        try (FleetCollector fleet = FleetCollector.start(spec, Duration.ofSeconds(1), args[0], args[1],
                PublisherTopics.defaults(), nodes * 10, -1)) {
            // Half the GPUs busy: realistic load values, and the busy-set lookups are part of the cost.
            final List<String> busy = new ArrayList<>();
            for (final String node : fleet.fleet().nodeIds()) {
                busy.addAll(fleet.fleet().gpuUuids(node).subList(0, 4));
            }
            fleet.busyGpus().set(busy);
            final long start = System.nanoTime();
            for (long i = 0; i < seconds; i++) {
                Thread.sleep(1000);
                final PublisherStats now = fleet.publisher().stats();
                // a timeline on stderr, to see when drops happen (start-up, steady state)
                System.err.printf("timeline t=%d sent=%d dropped=%d buffered=%d ticks=%d late=%d last_tick_ms=%d%n", i + 1, now.sent(),
                        now.dropped(), now.buffered(), fleet.runner().ticks(), fleet.runner().lateTicks(),
                        fleet.runner().lastTick().toMillis());
            }
            final PublisherStats s = fleet.publisher().stats();
            final double elapsed = (System.nanoTime() - start) / 1e9;
            System.out.println("fleet_nodes=" + nodes);
            System.out.println("fleet_ticks=" + fleet.runner().ticks());
            System.out.println("fleet_late_ticks=" + fleet.runner().lateTicks());
            System.out.println("fleet_skipped_ticks=" + fleet.runner().skippedTicks());
            System.out.println("fleet_max_tick_ms=" + fleet.runner().maxTick().toMillis());
            System.out.println("fleet_last_tick_ms=" + fleet.runner().lastTick().toMillis());
            System.out.println("fleet_records_sent=" + s.sent());
            System.out.println("fleet_records_per_second=" + Math.round(s.sent() / elapsed));
            System.out.println("fleet_records_dropped=" + s.dropped());
            System.out.println("fleet_records_buffered_at_end=" + s.buffered());
        }
    }
}

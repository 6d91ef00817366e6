package io.gpupool.scheduler.app;

import io.gpupool.scheduler.stream.Membership;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.scheduler.stream.SchedulerTopology;

import io.gpupool.topics.TopicCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the scheduler in a JVM of its own (what the crash tests kill with SIGKILL), without the CLI:
 * {@code --bootstrap H:P --registry URL --state-dir DIR [--app-id ID] [--http-port N]
 * [--snapshot-every N] [--tick-ms N] [--instance-id ID] [--session-timeout-ms N] [--standby-replicas N]
 * [--gpupool.topic.ID.name NAME ...] [--kafka.CLIENT_SETTING VALUE ...] [--engine.SETTING VALUE ...]}
 * (engine settings as {@code gpupool scheduler --engine} takes them, e.g. {@code --engine.tenant.ml.max-gpus 16}). Prints {@code READY <http port>} once Streams is RUNNING.
 */
public final class SchedulerMain {
    private SchedulerMain() {
    }

    public static void main(final String[] args) throws Exception {
        final Map<String, String> a = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
            }
            a.put(args[i].substring(2), args[i + 1]);
        }
        final SchedulerOptions o = new SchedulerOptions(a.getOrDefault("app-id", SchedulerOptions.DEFAULT_APPLICATION_ID),
                required(a, "bootstrap"), required(a, "registry"), kafkaSettings(a), false,
                Path.of(required(a, "state-dir")), "127.0.0.1", Integer.parseInt(a.getOrDefault("http-port", "0")),
                engineSettings(a), Integer.parseInt(a.getOrDefault("snapshot-every", "" + SchedulerOptions.DEFAULT_SNAPSHOT_EVERY)),
                Long.parseLong(a.getOrDefault("tick-ms", "" + SchedulerOptions.DEFAULT_TICK_INTERVAL_MS)),
                TopicCatalog.defaults().withOverrides(prefixed(a)), SchedulerTopology.DEFAULT_MAX_CLOCK_AHEAD_MS,
                new Membership(a.getOrDefault("instance-id", ""),
                        Duration.ofMillis(Long.parseLong(a.getOrDefault("session-timeout-ms",
                                "" + Membership.DEFAULT_SESSION_TIMEOUT.toMillis()))),
                        Integer.parseInt(a.getOrDefault("standby-replicas", "" + Membership.PROFILE_STANDBYS))));
        final SchedulerApp app = SchedulerApp.start(o);
        final CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            app.close();
            done.countDown();
        }));
        if (!app.awaitRunning(Duration.ofMinutes(2))) {
            System.out.println("FAILED " + app.streams().state());
            System.exit(2);
        }
        System.out.println("READY " + app.httpPort());
        System.out.flush();
        done.await();
    }

    private static Map<String, String> prefixed(final Map<String, String> a) {
        final Map<String, String> m = new HashMap<>();
        a.forEach((k, v) -> {
            if (k.startsWith("gpupool.")) {
                m.put(k, v);
            }
        });
        return m;
    }

    /** {@code --engine.tenant.ml.max-gpus 16} -> tenant.ml.max-gpus=16. */
    private static Map<String, String> engineSettings(final Map<String, String> a) {
        final Map<String, String> m = new HashMap<>();
        a.forEach((k, v) -> {
            if (k.startsWith("engine.")) {
                m.put(k.substring("engine.".length()), v);
            }
        });
        return m;
    }

    /** {@code --kafka.session.timeout.ms 6000} -> session.timeout.ms=6000 (client settings on top of the profile). */
    private static Properties kafkaSettings(final Map<String, String> a) {
        final Properties p = new Properties();
        a.forEach((k, v) -> {
            if (k.startsWith("kafka.")) {
                p.put(k.substring("kafka.".length()), v);
            }
        });
        return p;
    }

    private static String required(final Map<String, String> a, final String key) {
        final String v = a.get(key);
        if (v == null) {
            throw new IllegalArgumentException("--" + key + " is required");
        }
        return v;
    }
}

package io.gpupool.scheduler.stream;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * How a scheduler instance belongs to its Kafka Streams group: static membership and standby replicas.
 * <p>
 * A static member ({@code group.instance.id}) that restarts takes its tasks back at once, with no
 * rebalance; a dynamic one that was killed keeps them, unanswered, until its session times out (45 s
 * by default), and only then does the restarted process get them. The session timeout is then what a
 * member that does not come back costs: how long its tasks wait before another instance takes them
 * over. Kafka Streams appends the stream thread's index to the instance id ({@code ID-1}, {@code ID-2}).
 *
 * @param instanceId      this instance's name in the group, stable across its restarts and unique in the
 *                        group; "" = {@link #defaultInstanceId}
 * @param sessionTimeout  how long the group waits for a member that stopped answering before its tasks move
 * @param standbyReplicas warm copies of each task's state on other instances; -1 = the profile's
 */
public record Membership(String instanceId, Duration sessionTimeout, int standbyReplicas) {
    /**
     * Longer than a restart takes (a JVM start and Streams' start, a few seconds), so that a restart keeps its
     * tasks; short enough that a second instance takes over from a dead one quickly.
     */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);
    public static final int PROFILE_STANDBYS = -1;

    public Membership {
        if (instanceId == null || instanceId.isBlank() && !instanceId.isEmpty()) {
            throw new IllegalArgumentException("the instance id must be a name or empty (derived), not blank");
        }
        // the broker's group.min.session.timeout.ms is 6 s by default
        if (sessionTimeout.compareTo(Duration.ofSeconds(6)) < 0) {
            throw new IllegalArgumentException("the session timeout must be at least 6 s (the broker's minimum), not "
                    + sessionTimeout.toMillis() + " ms");
        }
        if (standbyReplicas < PROFILE_STANDBYS) {
            throw new IllegalArgumentException("standby replicas must be 0 or more (or -1: the profile's)");
        }
    }

    /** A derived instance id, the default session timeout and the profile's standby replicas. */
    public static Membership defaults() {
        return new Membership("", DEFAULT_SESSION_TIMEOUT, PROFILE_STANDBYS);
    }

    /**
     * The instance id of a scheduler that names none: the application id, the host name and a digest of the
     * state directory. A restart on the same host and directory gets the same id; two instances on one host
     * cannot share a state directory (Kafka Streams locks it), so they get different ids.
     */
    public static String defaultInstanceId(final String applicationId, final Path stateDir) {
        return applicationId + "-" + hostName() + "-" + digest(stateDir.toAbsolutePath().normalize().toString());
    }

    /** The instance id to use: the given one, or the derived one. */
    public String instanceIdFor(final String applicationId, final Path stateDir) {
        return instanceId.isEmpty() ? defaultInstanceId(applicationId, stateDir) : instanceId;
    }

    /** The Kafka Streams settings of this membership, to put on top of the profile. */
    public Properties settings(final String applicationId, final Path stateDir) {
        final Properties p = new Properties();
        // the main consumer is the one in the group; the restore consumer has none
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), instanceIdFor(applicationId, stateDir));
        // unprefixed (only the main consumer has a session), so that a caller's plain session.timeout.ms wins
        p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) sessionTimeout.toMillis());
        // under a third of the session, as Kafka asks, so that one lost heartbeat does not end the session
        p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) Math.max(1_000, sessionTimeout.toMillis() / 4));
        if (standbyReplicas != PROFILE_STANDBYS) {
            p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbyReplicas);
        }
        return p;
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static String digest(final String s) {
        try {
            final byte[] d = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 4);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}

package io.gpupool.localstack.broker;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code server.properties} of a single-node KRaft cluster: one process is broker and controller.
 * Every internal topic is set to replication factor 1 and min ISR 1, because with the defaults (3)
 * a one-broker cluster cannot create the transaction-state topic and exactly-once never works.
 */
public final class ServerProperties {

    private ServerProperties() {
    }

    /** Settings in a stable order, so the written file is the same for the same inputs. */
    public static Map<String, String> render(final BrokerLayout layout, final int brokerPort,
                                             final int controllerPort, final boolean autoCreateTopics) {
        final Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + brokerPort);
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("log.dirs", layout.logDirs().toString());

        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("auto.create.topics.enable", Boolean.toString(autoCreateTopics));

        // One broker: every internal topic must fit on it.
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "10");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "10");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");

        // Nobody else will join the group: don't wait for them.
        p.put("group.initial.rebalance.delay.ms", "0");
        // A scheduler killed along with its state directory comes back under a new transactional id, so nothing
        // fences its open transaction: read_committed readers of its outputs (decisions, node commands) and its
        // successor's restore and offset fetch wait until the broker aborts it, at the transaction timeout (10 s
        // in Streams) plus up to one scan. The default scans every 10 s; every second keeps that stall near the timeout.
        p.put("transaction.abort.timed.out.transaction.cleanup.interval.ms", "1000");
        // A laptop-sized broker: few threads, and segments that stay small.
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "4");
        p.put("log.segment.bytes", Integer.toString(64 * 1024 * 1024));
        p.put("log.retention.check.interval.ms", "60000");
        return p;
    }

    /** The properties as file text; values never contain newlines, so plain {@code key=value} lines suffice. */
    public static String toText(final Map<String, String> properties) {
        final StringBuilder text = new StringBuilder("# Written by gpupool local-stack on every start; edits are overwritten.\n");
        properties.forEach((k, v) -> text.append(k).append('=').append(escape(v)).append('\n'));
        return text.toString();
    }

    private static String escape(final String value) {
        // Backslashes in Windows paths would be eaten by java.util.Properties.
        return value.replace("\\", "\\\\");
    }
}

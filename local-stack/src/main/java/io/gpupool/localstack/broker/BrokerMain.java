package io.gpupool.localstack.broker;

import java.util.Optional;

/**
 * Entry point of the broker JVM: {@code BrokerMain <parent-pid> server.properties}.
 * It watches the JVM that started it and exits (running Kafka's own shutdown hook, so the broker
 * stops cleanly) when that parent is gone, so a killed {@code gpupool up} never leaves an orphan
 * broker holding the data directory. Then it hands over to {@code kafka.Kafka}.
 */
public final class BrokerMain {

    private BrokerMain() {
    }

    public static void main(final String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: BrokerMain <parent-pid> <server.properties>");
            System.exit(2);
        }
        watchParent(Long.parseLong(args[0]));
        kafka.Kafka.main(new String[] {args[1]});
    }

    private static void watchParent(final long parentPid) {
        final Optional<ProcessHandle> parent = ProcessHandle.of(parentPid);
        if (parent.isEmpty() || !parent.get().isAlive()) {
            System.err.println("gpupool: parent process " + parentPid + " is gone; not starting the broker");
            System.exit(3);
        }
        parent.get().onExit().thenRun(() -> {
            System.err.println("gpupool: parent process " + parentPid + " exited; shutting the broker down");
            System.exit(0);
        });
    }
}

package io.gpupool.localstack.broker;

import java.nio.file.Path;

/** The broker's files inside a stack data directory, named in one place. */
public record BrokerLayout(Path dataDir) {

    public Path kafkaDir() {
        return dataDir.resolve("kafka");
    }

    /** Kafka's {@code log.dirs}: the partitions and the KRaft metadata log. */
    public Path logDirs() {
        return kafkaDir().resolve("data");
    }

    /** Written by {@code StorageTool format}; its presence means the storage is formatted. */
    public Path metaProperties() {
        return logDirs().resolve("meta.properties");
    }

    /** The cluster id chosen on the first run and kept, so a reused directory always matches it. */
    public Path clusterIdFile() {
        return kafkaDir().resolve("cluster.id");
    }

    public Path serverProperties() {
        return kafkaDir().resolve("server.properties");
    }

    public Path log4jConfig() {
        return kafkaDir().resolve("log4j2.properties");
    }

    public Path logsDir() {
        return dataDir.resolve("logs");
    }

    public Path brokerLog() {
        return logsDir().resolve("broker.log");
    }

    public Path formatLog() {
        return logsDir().resolve("storage-format.log");
    }
}

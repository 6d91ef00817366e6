package io.gpupool.localstack.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;

/**
 * Logging of the broker JVM. The child inherits our classpath, so its SLF4J binding is whatever
 * the caller has: log4j2 (the Kafka distribution's choice) reads the config written here, and
 * slf4j-simple writes to stderr. Either way the child's stdout and stderr are redirected into
 * {@code logs/broker.log}, so all of it lands in one file and nothing reaches the user's terminal.
 */
final class BrokerLogging {

    private static final String LOG4J2 = """
            # Written by gpupool local-stack: the broker logs to stdout, which goes to logs/broker.log.
            status = warn
            appender.out.type = Console
            appender.out.name = out
            appender.out.target = SYSTEM_OUT
            appender.out.layout.type = PatternLayout
            appender.out.layout.pattern = [%d] %p %m (%c)%n
            rootLogger.level = info
            rootLogger.appenderRef.out.ref = out
            logger.kafka.name = kafka
            logger.kafka.level = info
            logger.request.name = kafka.request.logger
            logger.request.level = warn
            logger.controller.name = kafka.controller
            logger.controller.level = info
            logger.state.name = state.change.logger
            logger.state.level = warn
            """;

    private BrokerLogging() {
    }

    /** Writes the log4j2 config and returns the JVM flags that point both possible bindings at it. */
    static List<String> prepare(final BrokerLayout layout) throws IOException {
        Files.createDirectories(layout.logsDir());
        Files.writeString(layout.log4jConfig(), LOG4J2, StandardCharsets.UTF_8);
        return List.of(
                "-Dlog4j2.configurationFile=" + layout.log4jConfig().toUri(),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=yyyy-MM-dd'T'HH:mm:ss.SSS",
                "-Dorg.slf4j.simpleLogger.log.kafka.request.logger=warn",
                "-Dorg.slf4j.simpleLogger.log.state.change.logger=warn");
    }
}

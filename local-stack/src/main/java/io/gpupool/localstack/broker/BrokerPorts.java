package io.gpupool.localstack.broker;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The broker's two ports. A reused data directory gets the ports of its last run when they are
 * free, so clients that remembered the address keep working; otherwise free ones are chosen.
 */
record BrokerPorts(int broker, int controller) {

    private static final Pattern LISTENER = Pattern.compile("(PLAINTEXT|CONTROLLER)://[^:,]+:(\\d+)");

    static BrokerPorts choose(final BrokerLayout layout, final int wantedBrokerPort) throws IOException {
        final BrokerPorts previous = previous(layout);
        final int broker;
        if (wantedBrokerPort > 0) {
            if (!Ports.isFree(wantedBrokerPort)) {
                throw new BrokerException("port " + wantedBrokerPort + " is already in use; choose another with --port, or 0 for any free port");
            }
            broker = wantedBrokerPort;
        } else {
            broker = Ports.preferred(previous.broker());
        }
        int controller = Ports.preferred(previous.controller());
        while (controller == broker) {
            controller = Ports.free();
        }
        return new BrokerPorts(broker, controller);
    }

    /** The ports written in the last server.properties, or 0s when there is none. */
    static BrokerPorts previous(final BrokerLayout layout) throws IOException {
        if (!Files.isRegularFile(layout.serverProperties())) {
            return new BrokerPorts(0, 0);
        }
        final Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(layout.serverProperties(), StandardCharsets.UTF_8)) {
            props.load(reader);
        }
        int broker = 0;
        int controller = 0;
        final Matcher m = LISTENER.matcher(props.getProperty("listeners", ""));
        while (m.find()) {
            if (m.group(1).equals("PLAINTEXT")) {
                broker = Integer.parseInt(m.group(2));
            } else {
                controller = Integer.parseInt(m.group(2));
            }
        }
        return new BrokerPorts(broker, controller);
    }
}

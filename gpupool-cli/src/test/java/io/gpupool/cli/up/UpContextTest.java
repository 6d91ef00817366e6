package io.gpupool.cli.up;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.StackDescriptor;
import io.gpupool.localstack.broker.BrokerSettings;
import io.gpupool.localstack.secure.StackPrincipal;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every client `up` starts gets the broker's address and `--command-config` over it; nothing else on a plaintext stack. */
class UpContextTest {

    @TempDir
    Path dir;

    @Test
    void theCommandConfigReachesEveryPrincipalsClients() {
        final Properties commandConfig = new Properties();
        commandConfig.setProperty("client.dns.lookup", "use_all_dns_ips");
        commandConfig.setProperty("compression.type", "zstd");
        final UpContext context = new UpContext(LocalStackSettings.defaults(dir), Map.of(), new PrintWriter(new StringWriter()),
                commandConfig);
        context.stackStarted(new StackDescriptor(dir, "127.0.0.1:9", Optional.empty(), -1, -1));
        for (final StackPrincipal principal : StackPrincipal.values()) {
            assertThat(context.clientMap(principal)).containsExactlyInAnyOrderEntriesOf(Map.of("bootstrap.servers", "127.0.0.1:9",
                    "client.dns.lookup", "use_all_dns_ips", "compression.type", "zstd"));
        }
        assertThat(BrokerSettings.defaults(dir).adminClientProperties()).isEmpty();
    }
}

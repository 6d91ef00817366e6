package io.gpupool.scheduler.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A scheduler killed with SIGKILL and restarted on the same state directory comes back as the same static
 * members of its group: the restart replaces the dead process's members instead of joining beside them, so
 * nothing waits for the dead ones' sessions to time out (with the default 10 s session; the timing itself is
 * `gpupool bench restart`'s).
 */
@ExtendWith(LocalStackExtension.class)
class StaticMembershipOnStackTest {

    @Test
    void aRestartOnTheSameStateDirectoryReplacesTheKilledInstancesMembers(final TestStack stack) throws Exception {
        final String prefix = stack.uniqueName("static");
        final String app = prefix + "-app";
        final StackClients clients = new StackClients(stack, prefix);
        final Path state = Files.createTempDirectory("gpupool-static-state-");
        final Path log = Files.createTempFile("gpupool-static-", ".log");
        final List<String> args = new ArrayList<>(List.of("--bootstrap", stack.bootstrapServers(),
                "--registry", stack.requireRegistryUrl(), "--app-id", app, "--state-dir", state.toString()));
        args.addAll(clients.topicArgs());
        final String instance = Membership.defaultInstanceId(app, state);

        final ChildScheduler first = ChildScheduler.start(args, log);
        try {
            first.awaitReady(Duration.ofSeconds(120));
        } finally {
            first.kill();
        }
        try (ChildScheduler second = ChildScheduler.start(args, log); Admin admin = admin(stack)) {
            second.awaitReady(Duration.ofSeconds(120));
            // one member per stream thread (this machine's default), each named after the instance; none left over
            // from the killed process
            final int threads = StreamsSettings.streamThreadsHere();
            final Set<String> expected = IntStream.rangeClosed(1, threads).mapToObj(t -> instance + "-" + t)
                    .collect(Collectors.toSet());
            await("the group's members; child log " + log).atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(instanceIds(admin, app)).isEqualTo(expected));
            assertThat(group(admin, app).members()).hasSize(threads);
        }
    }

    private static Set<String> instanceIds(final Admin admin, final String group) throws Exception {
        return group(admin, group).members().stream().map(MemberDescription::groupInstanceId)
                .map(id -> id.orElse("(dynamic)")).collect(Collectors.toSet());
    }

    private static ConsumerGroupDescription group(final Admin admin, final String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS).get(group);
    }

    private static Admin admin(final TestStack stack) {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        return Admin.create(p);
    }
}

package io.gpupool.localstack;

import io.gpupool.localstack.broker.BrokerException;
import io.gpupool.localstack.testing.LocalStackExtension;
import io.gpupool.localstack.testing.TestStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Finding the running stack through its data directory alone. */
@ExtendWith(LocalStackExtension.class)
class LocalStackTest {

    @Test
    void theDescriptorInTheDataDirLeadsToTheRunningStack(final TestStack stack) {
        final Optional<StackDescriptor> found = LocalStack.findRunning(stack.dataDir());
        assertThat(found).isPresent();
        assertThat(found.get().bootstrapServers()).isEqualTo(stack.bootstrapServers());
        assertThat(found.get().ownerPid()).isEqualTo(ProcessHandle.current().pid());
        assertThat(found.get().brokerAlive()).isTrue();
        assertThat(found.get().registryUrl()).isEqualTo(stack.registryUrl());
    }

    @Test
    void connectOrStartJoinsARunningStackWithoutOwningIt(final TestStack stack) {
        try (StackHandle handle = LocalStack.connectOrStart(LocalStackSettings.defaults(stack.dataDir()))) {
            assertThat(handle.startedHere()).isFalse();
            assertThat(handle.bootstrapServers()).isEqualTo(stack.bootstrapServers());
        }
        assertThat(LocalStack.findRunning(stack.dataDir())).as("closing a joined handle leaves the stack running").isPresent();
    }

    @Test
    void aSecondStackOnTheSameDataDirIsRefused(final TestStack stack) {
        assertThatThrownBy(() -> LocalStack.start(LocalStackSettings.defaults(stack.dataDir())))
                .isInstanceOf(BrokerException.class)
                .hasMessageContaining("already runs")
                .hasMessageContaining("--data-dir");
    }

    @Test
    void theRegistryAnswersOverHttpAtTheDescribedUrl(final TestStack stack) throws Exception {
        final String url = LocalStack.findRunning(stack.dataDir()).orElseThrow().registryUrl().orElseThrow();
        assertThat(url).isEqualTo(stack.requireRegistryUrl());
        final HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(url + "/subjects")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).startsWith("[");
    }

    @Test
    void aDataDirWithoutAStackHasNoneRunning(@TempDir final Path empty) {
        assertThat(LocalStack.findRunning(empty)).isEmpty();
    }

    @Test
    void aStaleDescriptorIsNotMistakenForARunningStack(@TempDir final Path dir) {
        new StackDescriptor(dir, "127.0.0.1:1", Optional.empty(), Long.MAX_VALUE - 1, Long.MAX_VALUE - 1).write();
        assertThat(LocalStack.findRunning(dir)).isEmpty();
    }
}

package io.gpupool.localstack.testing;

import io.gpupool.localstack.LocalStack;
import io.gpupool.localstack.LocalStackSettings;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Shares one local stack (a real KRaft broker in a child JVM, the same path {@code gpupool up}
 * takes, plus the registry) among all tests of a test JVM. It starts on first use, lives in the
 * root store and is stopped when the test run ends; its data directory is a temporary one.
 *
 * <pre>
 * &#64;ExtendWith(LocalStackExtension.class)
 * class MyIT {
 *     &#64;Test void works(TestStack stack) { ... stack.bootstrapServers() ... }
 * }
 * </pre>
 * A {@link TestStack} parameter is injected into constructors, lifecycle and test methods;
 * {@link #stack(ExtensionContext)} gives it to other extensions.
 */
public final class LocalStackExtension implements BeforeAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(LocalStackExtension.class);
    private static final String KEY = "shared-local-stack";

    @Override
    public void beforeAll(final ExtensionContext context) {
        stack(context);
    }

    @Override
    public boolean supportsParameter(final ParameterContext parameter, final ExtensionContext context) {
        return parameter.getParameter().getType() == TestStack.class;
    }

    @Override
    public Object resolveParameter(final ParameterContext parameter, final ExtensionContext context)
            throws ParameterResolutionException {
        return stack(context);
    }

    /** The shared stack, started now if this is its first use in this test JVM. */
    public static TestStack stack(final ExtensionContext context) {
        return context.getRoot().getStore(NAMESPACE)
                .getOrComputeIfAbsent(KEY, key -> SharedStack.start(), SharedStack.class)
                .view();
    }

    /** Kept in the root store; JUnit closes it once every test has run. */
    static final class SharedStack implements AutoCloseable {
        private final LocalStack stack;
        private final Path dataDir;
        private final TestStack view;

        private SharedStack(final LocalStack stack, final Path dataDir) {
            this.stack = stack;
            this.dataDir = dataDir;
            this.view = new TestStack(stack.bootstrapServers(), stack.registryUrl(), dataDir);
        }

        static SharedStack start() {
            final Path dataDir;
            try {
                dataDir = Files.createTempDirectory("gpupool-test-stack-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a data directory for the test stack", e);
            }
            return new SharedStack(LocalStack.start(LocalStackSettings.defaults(dataDir)), dataDir);
        }

        TestStack view() {
            return view;
        }

        @Override
        public void close() throws IOException {
            try {
                stack.close();
            } finally {
                keepBrokerLog();
                deleteTree(dataDir);
            }
        }

        /**
         * The data directory is temporary, but the broker's log explains a failed integration test:
         * keep a copy in the module's {@code target/} when the tests run from a Maven module.
         */
        private void keepBrokerLog() throws IOException {
            final Path log = stack.broker().layout().brokerLog();
            final Path target = Path.of("target");
            if (Files.isRegularFile(log) && Files.isDirectory(target)) {
                Files.copy(log, target.resolve("local-stack-broker-" + ProcessHandle.current().pid() + ".log"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }

        private static void deleteTree(final Path root) throws IOException {
            try (Stream<Path> paths = Files.walk(root)) {
                for (final Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}

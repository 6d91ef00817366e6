package io.gpupool.cli;

import io.gpupool.cli.config.ClusterOptions;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.config.ConfigLayers;
import io.gpupool.cli.config.DataDirOption;
import io.gpupool.cli.config.DurationConverter;
import io.gpupool.cli.up.PipelineOptions;
import io.gpupool.cli.up.PipelineServices;
import io.gpupool.cli.up.SecureService;
import io.gpupool.cli.up.SchedulerService;
import io.gpupool.cli.up.ServiceGroup;
import io.gpupool.cli.up.StackService;
import io.gpupool.cli.up.TopicsService;
import io.gpupool.cli.up.UpContext;
import io.gpupool.cli.up.UpService;
import io.gpupool.localstack.LocalStackSettings;
import io.gpupool.localstack.broker.BrokerSettings;
import io.gpupool.localstack.secure.StackPrincipal;
import io.gpupool.localstack.secure.StackSecurity;
import io.gpupool.scheduler.stream.SchedulerOptions;
import io.gpupool.topics.TenantJobTopics;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code gpupool up}: the whole pipeline on one machine, until Ctrl-C or {@code --duration}. */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = {
            "Runs gpupool on this machine until Ctrl-C or --duration.",
            "Starts a real single-node KRaft Kafka broker (child JVM) and the Schema-Registry-compatible server,",
            "creates every gpupool topic, and prints the bootstrap servers, the registry URL and the data directory.",
            "Then the scheduler (--no-scheduler: run `gpupool scheduler` apart), a simulated fleet, a simulated sink and a job",
            "generator (or --trace replay);",
            "progress goes to stderr, the run's figures (name=value) to stdout when it stops.",
            "Data stays in --data-dir and is reused by the next run; other commands find the stack through it."})
public final class UpCommand implements Callable<Integer> {

    @Mixin
    DataDirOption dataDir;

    @Mixin
    ConfigFileOption configFile;

    @Option(names = "--duration", paramLabel = "TIME", converter = DurationConverter.class,
            description = "Stop after this long (e.g. 30s, 5m, 2h). Default: run until Ctrl-C.")
    Duration duration;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "0",
            description = "Broker port. 0 (default): the previous run's port when free, else any free port.")
    int port;

    @Option(names = "--registry-port", paramLabel = "PORT", defaultValue = "0",
            description = "Schema registry HTTP port. 0 (default): the previous one when free, else any free port.")
    int registryPort;

    @Option(names = "--broker-heap", paramLabel = "SIZE", defaultValue = "512m",
            description = "Maximum heap of the broker JVM (default ${DEFAULT-VALUE}).")
    String brokerHeap;

    @Option(names = "--command-config", paramLabel = "FILE",
            description = "Kafka client properties (security.protocol, sasl.*, ssl.*; schema.registry.* and basic.auth.*"
                    + " for the registry) for every client up starts: topics, scheduler, fleet, sink and generator.")
    Path commandConfig;

    @Option(names = "--secure",
            description = "Secured stack: the broker with SASL/SCRAM-SHA-512 over TLS and ACLs per principal (scheduler, sink,"
                    + " collector, submitter, auditor), the registry over HTTPS with basic auth. Certificates and passwords are"
                    + " made at the first start in <data-dir>/secure/, with one --command-config file per principal.")
    boolean secure;

    @Option(names = "--tenants", paramLabel = "TENANT", split = ",",
            description = "Tenants with a job topic of their own (gpupool.jobs.<tenant>): a job written there is that tenant's,"
                    + " and one naming another tenant is REJECTED. With --secure each gets a user that may write only its"
                    + " topic, and a client file <data-dir>/secure/tenant-<tenant>.properties. Tenants of earlier runs stay.")
    List<String> tenants = new ArrayList<>();

    @Mixin
    PipelineOptions pipeline;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** The services in start order: the stack, topics and scheduler (unless --no-scheduler), then the fleet, sink, workload and progress. */
    static List<UpService> services(final PipelineOptions pipeline, final boolean secure, final PrintWriter err) {
        return services(pipeline, secure, List.of(), err);
    }

    /** @param tenants whose job topics up makes (the scheduler reads every tenant's topic there is) */
    static List<UpService> services(final PipelineOptions pipeline, final boolean secure, final Collection<String> tenants,
                                    final PrintWriter err) {
        final List<UpService> all = new ArrayList<>(List.of(new StackService(), new TopicsService(tenants)));
        if (secure) {
            all.add(new SecureService(SchedulerOptions.DEFAULT_APPLICATION_ID));
        }
        if (!pipeline.noScheduler) {
            all.add(new SchedulerService());
        }
        all.addAll(PipelineServices.of(pipeline, err));
        return all;
    }

    @Override
    public Integer call() throws Exception {
        if (duration != null && (duration.isZero() || duration.isNegative())) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--duration must be positive, e.g. 30s");
        }
        if (pipeline.problem() != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), pipeline.problem());
        }
        for (final String tenant : tenants) {
            final String invalid = TenantJobTopics.invalidTenant(tenant);
            if (invalid != null) {
                throw new CommandLine.ParameterException(spec.commandLine(), "--tenants: " + invalid);
            }
        }
        final PrintWriter out = spec.commandLine().getOut();
        BrokerSettings broker = BrokerSettings.defaults(dataDir.path()).withPort(port).withHeap(brokerHeap);
        final SortedSet<String> allTenants = new TreeSet<>(tenants);
        if (secure) {
            final StackSecurity security = StackSecurity.ensure(broker.dataDir(), tenants);
            broker = broker.withSecurity(security);
            allTenants.addAll(security.tenants());
        }
        final LocalStackSettings settings = new LocalStackSettings(broker, registryPort);
        final UpContext context = new UpContext(settings, ConfigLayers.of(spec).fileEntries(), out,
                commandConfig == null ? new Properties() : ClusterOptions.commandConfig(commandConfig));

        out.printf("gpupool up: data directory %s%n", dataDir.path());
        out.flush();
        final long began = System.nanoTime();
        final ServiceGroup group = new ServiceGroup(services(pipeline, secure, allTenants, spec.commandLine().getErr()));
        final CountDownLatch stopRequested = new CountDownLatch(1);
        final CountDownLatch stopped = new CountDownLatch(1);
        final Thread main = Thread.currentThread();
        final AtomicBoolean starting = new AtomicBoolean(true);
        final Thread hook = new Thread(() -> {
            stopRequested.countDown();
            if (starting.get()) {
                // Ctrl-C while starting: abort the start (its waits are interruptible); the
                // services already started are stopped by the group.
                main.interrupt();
            }
            try {
                // Keep the JVM alive until the services have stopped cleanly.
                stopped.await(90, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "gpupool-up-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            try {
                group.start(context);
            } catch (Exception e) {
                if (stopRequested.getCount() == 0) {
                    // Said here: once this method returns, the shutdown hook lets the JVM end at once.
                    out.println("gpupool up: stopped while starting (" + e.getMessage() + ")");
                    out.flush();
                    return ExitCodes.INTERRUPTED.code();
                }
                throw e;
            } finally {
                starting.set(false);
            }
            if (Thread.interrupted()) {
                // Ctrl-C came just as the last service finished starting.
                group.close();
                out.println("gpupool up: interrupted while starting; stopped");
                out.flush();
                return ExitCodes.INTERRUPTED.code();
            }
            out.printf("gpupool is up (%.1f s):%n", (System.nanoTime() - began) / 1e9);
            out.printf("  bootstrap servers  %s%n", context.bootstrapServers());
            out.printf("  registry URL       %s%n", context.registryUrl().orElse("(none)"));
            out.printf("  data directory     %s%n", dataDir.path());
            out.printf("  broker log         %s%n", settings.broker().layout().brokerLog());
            settings.broker().security().ifPresent(s -> out.printf("  client settings    %s  (--command-config, one per principal)%n",
                    s.clientFile(StackPrincipal.SUBMITTER).resolveSibling("<principal>.properties")));
            out.println(duration == null ? "Running until Ctrl-C." : "Running for " + duration.toSeconds() + " s (--duration).");
            out.flush();
            if (duration == null) {
                stopRequested.await();
            } else {
                stopRequested.await(duration.toMillis(), TimeUnit.MILLISECONDS);
            }
            out.println("gpupool up: stopping " + String.join(", ", group.running()));
            out.flush();
            final long stopBegan = System.nanoTime();
            group.close();
            out.printf("gpupool up: stopped cleanly (%.1f s)%n", (System.nanoTime() - stopBegan) / 1e9);
            out.flush();
            return 0;
        } finally {
            stopped.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // Ctrl-C path: the hook is running and returns now that everything has stopped.
            }
        }
    }
}

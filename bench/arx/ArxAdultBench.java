import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.metric.Metric;

/**
 * ARX 3.9.2 on Adult (8 QIs, the shared hierarchies): warm runs of issue 30's scenarios in one JVM.
 * Usage: java ArxAdultBench DIR [warmups] [runs] [scenario ...]
 * Prints one line per scenario: name, median wall ms, median process-CPU ms, checked nodes, optimum levels, IL.
 */
public class ArxAdultBench {
    static final String[] QI = {"age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"};
    static final String[] ALL = {"k5_0_dm", "k5_5_dm", "k5_5_dmstar", "k2_5_dm", "k10_5_dm", "k50_5_dm", "l3_5_dm", "t02_5_dm", "k5_5_precision", "k5_5_height"};

    static Data load(String dir, boolean sensitive) throws Exception {
        Data data = Data.create(dir + "/adult.csv", StandardCharsets.UTF_8, ';');
        for (String q : QI) {
            data.getDefinition().setAttributeType(q, Hierarchy.create(dir + "/adult_hierarchy_" + q + ".csv", StandardCharsets.UTF_8, ';'));
        }
        data.getDefinition().setAttributeType("occupation", sensitive ? AttributeType.SENSITIVE_ATTRIBUTE : AttributeType.INSENSITIVE_ATTRIBUTE);
        return data;
    }

    static ARXConfiguration config(String s) {
        ARXConfiguration c = ARXConfiguration.create();
        int k = s.startsWith("k2_") ? 2 : s.startsWith("k10_") ? 10 : s.startsWith("k50_") ? 50 : 5;
        c.addPrivacyModel(new KAnonymity(k));
        if (s.startsWith("l3")) c.addPrivacyModel(new DistinctLDiversity("occupation", 3));
        if (s.startsWith("t02")) c.addPrivacyModel(new EqualDistanceTCloseness("occupation", 0.2));
        c.setSuppressionLimit(s.contains("_0_") ? 0d : 0.05d);
        if (s.endsWith("_dmstar")) c.setQualityModel(Metric.createDiscernabilityMetric(true));
        else if (s.endsWith("_dm")) c.setQualityModel(Metric.createDiscernabilityMetric(false));
        else if (s.endsWith("_precision")) c.setQualityModel(Metric.createPrecisionMetric());
        else if (s.endsWith("_height")) c.setQualityModel(Metric.createHeightMetric());
        return c;
    }

    static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static double median(List<Double> v) {
        List<Double> s = new ArrayList<>(v); Collections.sort(s);
        int n = s.size(); return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        int warm = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 7;
        String[] names = args.length > 3 ? Arrays.copyOfRange(args, 3, args.length) : ALL;
        for (String s : names) {
            boolean sens = s.startsWith("l3") || s.startsWith("t02");
            Data data = load(dir, sens);
            List<Double> wall = new ArrayList<>(), cpus = new ArrayList<>();
            ARXResult result = null;
            for (int i = 0; i < warm + runs; i++) {
                data.getHandle().release();
                ARXAnonymizer anonymizer = new ARXAnonymizer();
                ARXConfiguration c = config(s);
                long w0 = System.nanoTime(), c0 = cpu();
                result = anonymizer.anonymize(data, c);
                long w1 = System.nanoTime(), c1 = cpu();
                if (i >= warm) { wall.add((w1 - w0) / 1e6); cpus.add((c1 - c0) / 1e6); }
            }
            ARXLattice.ARXNode opt = result.getGlobalOptimum();
            int checked = 0;
            for (ARXLattice.ARXNode[] level : result.getLattice().getLevels())
                for (ARXLattice.ARXNode n : level) if (n.isChecked()) checked++;
            StringBuilder lv = new StringBuilder();
            for (String q : QI) lv.append(lv.length() > 0 ? "," : "").append(opt.getGeneralization(q));
            System.out.printf(Locale.ROOT, "ARX %s wall_ms=%.1f cpu_ms=%.1f checked=%d levels=%s il=%s%n",
                s, median(wall), median(cpus), checked, lv, opt.getHighestScore());
        }
    }
}

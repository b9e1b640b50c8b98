/*
 * Record.java -- written for sdg_automata (not part of CGSuite).
 *
 * Runs MisereSolver (org.cgsuite.core.misere.solver.MisereSolver) on one octal or
 * hexadecimal code up to a heap bound and prints its result as one JSON object, the way
 * CGSuite's CommandLineInterface.runMisereSolver drives it (new MisereSolver(rules), then
 * next() until the pretending function covers heaps 0..maxheap), without CGSuite's
 * CGScript runtime and without its stop at a proven arithmetic periodicity (the
 * comparison wants every heap up to the bound).
 *
 *   java -cp CLASSES org.cgsuite.core.misere.solver.Record CODE MAXHEAP [-pd2only]
 *
 * Output: code, maxheap, order, p_size, generators (the number of generators), elements
 * (each element's word in MisereSolver's presentation, e.g. "ab2"), actions (actions[g][x]
 * = x times generator g, computed by the solver's own product), p_portion (element
 * indices), heaps (heap n's element, n = 0..maxheap), presentation (the solver's
 * printout of (Q, P)), expansion_heaps (where the presentation changed).
 */
package org.cgsuite.core.misere.solver;

import java.util.ArrayList;
import java.util.List;

public final class Record
{
    private Record()
    {
    }

    public static void main(String[] args)
    {
        if (args.length < 2 || args.length > 3 || (args.length == 3 && !args[2].equals("-pd2only")))
        {
            System.err.println("usage: Record CODE MAXHEAP [-pd2only]");
            System.exit(2);
        }
        HeapRuleset rules = new HeapRuleset(args[0]);
        int maxHeap = Integer.parseInt(args[1]);
        MisereSolver ms = new MisereSolver(rules);
        ms.pd2Only = args.length == 3;
        while (ms.p.prefn.size() <= maxHeap)
        {
            ms.next();
        }
        BipartiteMonoid q = ms.p.quotient;
        CommutativeMonoid m = q.monoid;
        StringBuilder out = new StringBuilder("{");
        out.append("\"code\": ").append(quote(args[0]));
        out.append(", \"maxheap\": ").append(maxHeap);
        out.append(", \"order\": ").append(m.size());
        out.append(", \"p_size\": ").append(q.pPortionSize());
        out.append(", \"generators\": ").append(m.getNumGenerators());
        List<String> words = new ArrayList<String>();
        for (int x = 0; x < m.size(); x++)
        {
            words.add(quote(m.elementToWord(x).toString()));
        }
        out.append(", \"elements\": ").append(words);
        List<List<Integer>> actions = new ArrayList<List<Integer>>();
        for (int g = 0; g < m.getNumGenerators(); g++)
        {
            List<Integer> row = new ArrayList<Integer>();
            for (int x = 0; x < m.size(); x++)
            {
                row.add(m.product(x, m.getGeneratorElement(g)));
            }
            actions.add(row);
        }
        out.append(", \"actions\": ").append(actions);
        List<Integer> p = new ArrayList<Integer>();
        for (int x = q.pPortion.nextSetBit(0); x != -1; x = q.pPortion.nextSetBit(x + 1))
        {
            p.add(x);
        }
        out.append(", \"p_portion\": ").append(p);
        out.append(", \"heaps\": ").append(ms.p.prefn);
        out.append(", \"presentation\": ").append(quote(q.toString()));
        out.append(", \"expansion_heaps\": ").append(ms.expansionHeaps);
        out.append("}");
        System.out.println(out);
    }

    private static String quote(String s)
    {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}

/** Thrown by MisereSolver.next() when its thread is interrupted (CGSuite defines it in
 *  CommandLineInterface.java, which is not built here). */
class TimeoutException extends RuntimeException
{
}

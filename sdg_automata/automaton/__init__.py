"""automaton"""

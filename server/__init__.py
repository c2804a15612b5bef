"""Selfish server: the pure rules engine (``server.engine``) and the asyncio shell around it.

This package module imports nothing heavy, so ``import server.engine`` never loads asyncio code.
"""

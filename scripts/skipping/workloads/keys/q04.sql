select o_orderkey, o_orderdate from orders where o_custkey = 12345

select o_orderkey, o_totalprice from orders where o_custkey = 4711
